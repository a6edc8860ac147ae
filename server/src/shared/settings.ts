// Settings and custom requests shared by the VS Code client and the server,
// so both sides agree on names and shapes (as vscode-eslint does).
import type { SeveritySetting } from '../engine/base/types';

export const SECTION = 'fluxJobGuard';

export interface FluxJobGuardSettings {
  enable: boolean;
  /** The required TTL where the contract file does not say (`ttl.required`). */
  ttl: { required: number };
  /** Contract file, relative to the workspace folder. */
  contractPath: string;
  /** Severity overrides; the contract file's `rules:` wins. */
  rules: Record<string, SeveritySetting>;
  /** YAML extensions already show syntax errors; show ours too? */
  showYamlSyntaxErrors: boolean;
  /** Files larger than this many bytes are skipped with one info finding. */
  maxFileSize: number;
  /** Values of Flux variables shown inline after each `${NAME}`. */
  inlayHints: { enabled: boolean };
}

export const DEFAULT_SETTINGS: FluxJobGuardSettings = {
  enable: true,
  ttl: { required: 86400 },
  contractPath: '.flux-job-guard.yaml',
  rules: {},
  showYamlSyntaxErrors: false,
  maxFileSize: 5 * 1024 * 1024,
  inlayHints: { enabled: true },
};

export function withDefaults(partial: Partial<FluxJobGuardSettings> | null | undefined): FluxJobGuardSettings {
  const value = partial ?? {};
  return {
    enable: typeof value.enable === 'boolean' ? value.enable : DEFAULT_SETTINGS.enable,
    ttl: { required: Number.isSafeInteger(value.ttl?.required) && value.ttl!.required >= 0 ? value.ttl!.required : DEFAULT_SETTINGS.ttl.required },
    contractPath: typeof value.contractPath === 'string' && value.contractPath.trim() !== '' ? value.contractPath : DEFAULT_SETTINGS.contractPath,
    rules: value.rules && typeof value.rules === 'object' ? value.rules : {},
    showYamlSyntaxErrors: value.showYamlSyntaxErrors === true,
    maxFileSize: Number.isSafeInteger(value.maxFileSize) && value.maxFileSize! > 0 ? value.maxFileSize! : DEFAULT_SETTINGS.maxFileSize,
    inlayHints: { enabled: value.inlayHints?.enabled !== false },
  };
}

/** Custom requests between client and server. */
export const Requests = {
  /** client → server: audit every workspace folder; returns one summary per folder. */
  audit: 'fluxJobGuard/audit',
  /** client → server: the current file as Flux would render it. */
  previewSubstitution: 'fluxJobGuard/previewSubstitution',
  /** server → client (browser build): list files of a folder. */
  listFiles: 'fluxJobGuard/listFiles',
  /** server → client (browser build): one file's bytes as `{ base64 }`, `{ size }` when over the size limit, or null (see browser/protocol.ts). */
  readFile: 'fluxJobGuard/readFile',
} as const;

/** Notifications between client and server. */
export const Notifications = {
  /** server → client: what the server is doing, and the summary of each folder's last audit (StatusParams). */
  status: 'fluxJobGuard/status',
  /**
   * server → client: a change of one file changed what others say (a Kustomization, a variable's
   * source, the contract): views the client renders from the server (the substitution preview) ask again.
   */
  viewsChanged: 'fluxJobGuard/viewsChanged',
} as const;

/**
 * Commands the server runs (workspace/executeCommand). Named apart from the client's commands:
 * vscode-languageclient registers a VS Code command for each, and two of one name would collide.
 */
export const ServerCommands = {
  /** Creates the contract file of a folder (argument: the folder's URI; default the first) or shows it; returns CreateContractResult. */
  createContract: 'fluxJobGuard.server.createContract',
} as const;

export interface CreateContractResult {
  uri: string;
  created: boolean;
}

/** What the client tells the server at start (initializationOptions). */
export interface InitializationOptions {
  /** Whether the workspace is trusted (git is read only then). */
  trusted?: boolean;
  /**
   * Where the client shows each rule's documentation (rule id → URI): diagnostics link there.
   * Without it a diagnostic carries no link (the rule id is its code).
   */
  ruleDocs?: Record<string, string>;
}

/** The server's state: `indexing` (a folder is being read), `auditing`, or `idle`. */
export type ServerState = 'indexing' | 'auditing' | 'idle';

export interface StatusParams {
  state: ServerState;
  /** The last audit of each folder audited so far (empty before the first). */
  folders: AuditFolderSummary[];
  /** What the Problems panel shows from this server now: the status item counts exactly these. */
  problems: ProblemCounts;
}

/** Errors and warnings of the diagnostics published, and how many files hold at least one. */
export interface ProblemCounts {
  errors: number;
  warnings: number;
  files: number;
}

export interface AuditFolderSummary {
  folder: string;
  summaryLine: string;
  errors: number;
  warnings: number;
  jobs: number;
  files: number;
  /** The files with at least one error or warning. */
  filesWithProblems: number;
  /** The contract file, relative to the folder, and whether it exists. */
  contractPath: string;
  contractExists: boolean;
  durationMs: number;
}

export interface AuditResponse {
  folders: AuditFolderSummary[];
}

/** The client command a fix that writes the contract runs after its edit: opens the contract with the reason to write selected. */
export const REVEAL_REASON = 'fluxJobGuard.revealReason';

export interface RevealReasonArgs {
  uri: string;
  /** The placeholder reason the fix wrote, as it stands after the edit. */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** The client command a Job's code lens runs: shows the Job's cycle explained (the TTL hover where there is a TTL). */
export const SHOW_JOB_CYCLE = 'fluxJobGuard.showJobCycle';

export interface ShowJobCycleArgs {
  uri: string;
  /** Where the TTL key is written (the client shows the hover there), null without one. */
  position: { line: number; character: number } | null;
  markdown: string;
}

/**
 * The client command a Job's code lens runs when it counts the Kustomizations that apply the Job:
 * lists them where references are listed (VS Code's `editor.action.showReferences`, which wants
 * its own Uri and Location objects, not the JSON of a protocol command).
 */
export const SHOW_REFERENCES = 'fluxJobGuard.showReferences';

export interface ShowReferencesArgs {
  uri: string;
  position: { line: number; character: number };
  locations: Array<{ uri: string; range: RevealReasonArgs['range'] }>;
}
