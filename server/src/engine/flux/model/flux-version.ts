// Which Flux a world runs, where a FluxInstance pins it (`spec.distribution.version`,
// also in a HelmRelease's or a values file's `instance:`), and what that means for an
// undefined `${NAME}`: strict post-build substitution is kustomize-controller's default
// only since v1.9.0, Flux 2.9 (shared/spec/flux-substitution.md, "Undefined names").
// Under an older Flux the name is blanked, and a message that says "Flux fails the
// reconcile" would be wrong. A contract that writes `flux.strict` says what the
// clusters do, and wins.
import type { FileFacts, SyncDecl } from '../facts/model';
import type { RootCandidate } from './roots';
import type { PinnedFlux, World } from './world';

/** The first Flux release whose kustomize-controller fails a build on an undefined name by default. */
export const STRICT_DEFAULT_SINCE = { major: 2, minor: 9 } as const;

interface Minor {
  major: number;
  /** Infinity: any minor of the major. */
  minor: number;
}

/**
 * The newest major.minor a `distribution.version` admits (the operator reads it as a semver
 * constraint: `2.6.x`, `2.6.3`, `~2.6`, `>=2.3 <2.7`, `2.x`), null when it admits versions
 * without bound or cannot be read: then nothing is known, and the default stands.
 */
export function newestMinor(version: string): Minor | null {
  const alternatives = version.split('||').map((part) => upperBound(part.trim()));
  if (alternatives.length === 0 || alternatives.some((bound) => bound === null)) return null;
  return alternatives.reduce((a, b) => (compare(a!, b!) >= 0 ? a : b));
}

/** The upper bound of one set of comparators (all must hold: the lowest bound wins). */
function upperBound(constraint: string): Minor | null {
  let bound: Minor | null = null;
  for (const comparator of constraint.split(/[\s,]+/).filter((part) => part !== '')) {
    const found = comparatorBound(comparator);
    if (found === undefined) return null;
    if (found !== null && (bound === null || compare(found, bound) < 0)) bound = found;
  }
  return bound;
}

/** One comparator's upper bound: null where it has none (`>=2.3`), undefined where it is not semver. */
function comparatorBound(comparator: string): Minor | null | undefined {
  const match = /^(<=|>=|<|>|=|~|\^)?v?(\d+)(?:\.(\d+|x|X|\*))?(?:\.(\d+|x|X|\*))?(?:[-+][0-9A-Za-z.-]*)?$/.exec(comparator);
  if (!match) return undefined;
  const [, operator = '', majorText, minorText, patchText] = match;
  const major = Number(majorText);
  const minor = minorText === undefined || !/^\d+$/.test(minorText) ? null : Number(minorText);
  const patch = patchText === undefined || !/^\d+$/.test(patchText) ? null : Number(patchText);
  if (operator === '>' || operator === '>=') return null;
  if (operator === '^') return major === 0 && minor !== null ? { major, minor } : { major, minor: Infinity };
  if (operator === '<') {
    // `<2.9.0` and `<2.9` admit 2.8 at most; `<2.9.1` admits 2.9.0.
    if (minor === null) return { major: major - 1, minor: Infinity };
    if (patch !== null && patch > 0) return { major, minor };
    return minor > 0 ? { major, minor: minor - 1 } : { major: major - 1, minor: Infinity };
  }
  return { major, minor: minor ?? Infinity };
}

function compare(a: Minor, b: Minor): number {
  return a.major !== b.major ? a.major - b.major : a.minor === b.minor ? 0 : a.minor < b.minor ? -1 : 1;
}

/** Whether every version the pin admits predates strict substitution by default (an undefined name is blanked). */
export function predatesStrictDefault(version: string): boolean {
  const newest = newestMinor(version);
  return newest !== null && compare(newest, STRICT_DEFAULT_SINCE) < 0;
}

/**
 * The Flux a world runs, where a FluxInstance pins it: the sync the world starts from, else
 * the FluxInstances the world applies (when they pin one version between them). Null: unknown.
 */
export function worldFlux(candidate: RootCandidate, facts: ReadonlyMap<string, FileFacts>, applied: (file: string) => boolean): PinnedFlux | null {
  const pinned = (sync: SyncDecl): PinnedFlux | null => (sync.version === null ? null : { version: sync.version, file: sync.file });
  if (candidate.how === 'sync' && candidate.declaredIn !== null) {
    const own = facts.get(candidate.declaredIn)?.syncs.find((sync) => sync.name === candidate.kustomization.name && sync.namespace === candidate.kustomization.namespace);
    if (own) return pinned(own);
  }
  const found: PinnedFlux[] = [];
  for (const [file, fileFacts] of facts) if (fileFacts.syncs.length > 0 && applied(file)) for (const sync of fileFacts.syncs) if (sync.version !== null) found.push(pinned(sync)!);
  return found.length > 0 && found.every((pin) => pin.version === found[0].version) ? found[0] : null;
}

/** What the contract says of strict substitution: its value, and whether the file writes it. */
export interface StrictSetting {
  strict: boolean;
  strictFrom: 'contract' | 'default';
}

/** Whether Flux fails a build of `world` on an undefined name: the contract's written word, else the default of the Flux the world pins. */
export function strictIn(setting: StrictSetting, world: World): boolean {
  if (setting.strictFrom === 'contract') return setting.strict;
  return world.flux !== null && predatesStrictDefault(world.flux.version) ? false : setting.strict;
}

/** Why a world blanks undefined names though the contract keeps the default: its pinned Flux (null: not for that reason). */
export function blankedByPin(setting: StrictSetting, world: World): PinnedFlux | null {
  if (setting.strictFrom === 'contract' || !setting.strict || !world.flux || !predatesStrictDefault(world.flux.version)) return null;
  return world.flux;
}
