// The contract file (`.flux-job-guard.yaml`) as the engine sees it, with the
// source spans of every entry so findings can point at them.
import type { SeveritySetting } from '../base/types';
import type { FluxConfig } from '../flux/model/roots';

export const CONTRACT_FILE_NAME = '.flux-job-guard.yaml';
export const DEFAULT_INCLUDE = ['**/*.yaml', '**/*.yml'];
export const DEFAULT_REQUIRED_TTL = 86400;
export const DEFAULT_CONVERGENCE_NOTE = 'converges:';

/** [start, end) offsets in the contract file. */
export type Span = [number, number];

export type TtlListName = 'noFinishTimeout' | 'otherFinishTimeout';

export interface TtlEntry {
  list: TtlListName;
  /** Repository-relative path of the manifest (resolved against the contract's folder). */
  file: string;
  /** The path as written in the contract. */
  fileAsWritten: string;
  job: string | null;
  /** otherFinishTimeout only. */
  value: number | null;
  reason: string;
  spans: { item: Span; file: Span; job?: Span; value?: Span; reason?: Span };
}

export interface ExternalAccount {
  name: string;
  namespace: string | null;
  reason: string;
  spans: { item: Span; name: Span; namespace?: Span };
}

export type SubstitutionMode = 'auto' | 'always' | 'never';

export interface Contract {
  /** Repository-relative path of the contract file (it may not exist). */
  path: string;
  exists: boolean;
  /** The contract file's text, '' when it does not exist. */
  text: string;
  include: string[];
  exclude: string[];
  requiredTtl: number;
  /** Who set requiredTtl: the contract file's ttl.required, the editor setting (or CLI flag), or nobody (the default). */
  requiredTtlFrom: 'contract' | 'setting' | 'default';
  convergenceNote: string;
  noFinishTimeout: TtlEntry[];
  otherFinishTimeout: TtlEntry[];
  externalAccounts: ExternalAccount[];
  substitution: SubstitutionMode;
  strict: boolean;
  /** Who set strict: the contract file's flux.strict (it wins over every cluster's Flux version), or nobody (the default, which a pinned older Flux changes per world). */
  strictFrom: 'contract' | 'default';
  /** `flux.roots`, `flux.sources`, `flux.substituteFrom`, `flux.variables`: what the repository cannot show. */
  flux: FluxConfig;
  rules: Record<string, SeveritySetting>;
  /** Where `jobs.include` is written, for `contract-no-jobs`. */
  includeSpan: Span | null;
  /** The file exists but could not be read (binary, too large, not UTF-8): no fix may edit it. */
  unreadable?: boolean;
}

/** "the contract requires 86400", or who else does: a message never names a contract file that sets nothing. */
export function requiredTtlPhrase(contract: Pick<Contract, 'requiredTtl' | 'requiredTtlFrom'>): string {
  if (contract.requiredTtlFrom === 'contract') return `the contract requires ${contract.requiredTtl}`;
  if (contract.requiredTtlFrom === 'setting') return `the ttl.required setting requires ${contract.requiredTtl}`;
  return `the required value is ${contract.requiredTtl} (the default: no contract file sets ttl.required)`;
}

/** What editor settings (or CLI flags) say; the contract file wins where both speak. */
export interface Settings {
  requiredTtl?: number;
  rules?: Record<string, SeveritySetting>;
}

/** The folder contract paths and globs are relative to: the contract's own, or the root for a contract outside it. */
export function contractDir(contractPath: string): string {
  if (contractPath.startsWith('../')) return '';
  const slash = contractPath.lastIndexOf('/');
  return slash === -1 ? '' : contractPath.slice(0, slash);
}
