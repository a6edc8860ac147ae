// Shared vocabulary of the engine. Nothing here knows about LSP or VS Code:
// positions are 0-based lines and UTF-16 columns, exactly like LSP's, so the
// server passes them through and the CLI adds 1.

export type Severity = 'error' | 'warning' | 'info';
export type SeveritySetting = Severity | 'off';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** Replace `range` of `file` (relative to the repository root, `/`-separated) with `newText`. */
export interface FileEdit {
  file: string;
  range: Range;
  newText: string;
  /** The file does not exist yet: create it with `newText` as its content. */
  create?: boolean;
}

export interface Fix {
  title: string;
  edits: FileEdit[];
  /** The fix VS Code should offer first (and the one `fixAll` applies). */
  preferred?: boolean;
}

/** Another place a finding is about (the Kustomization that substitutes, the contract entry). */
export interface RelatedLocation {
  /** Relative to the repository root, `/`-separated. */
  file: string;
  range: Range;
  message: string;
}

export interface Finding {
  rule: string;
  severity: Severity;
  /** Relative to the repository root, `/`-separated. */
  file: string;
  range: Range;
  message: string;
  /** `metadata.name` of the Job the finding is about, as written; null when not about one Job. */
  job: string | null;
  fixes?: Fix[];
  related?: RelatedLocation[];
  /**
   * flux-substitution-undefined: the outside sources the contract could declare the name for
   * (the declare fix needs the whole repository's names, so it is added where the model is: repo-analysis.ts).
   */
  declarable?: { name: string; sources: Array<{ kind: 'ConfigMap' | 'Secret'; name: string; namespace: string | null }> };
}

export interface RuleMeta {
  id: string;
  defaultSeverity: SeveritySetting;
  /** One line: what the rule reports. */
  summary: string;
}
