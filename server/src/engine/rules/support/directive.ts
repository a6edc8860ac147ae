// The comment that silences findings on the next line (see pipeline/directives.ts).
export const DIRECTIVE = 'flux-job-guard-disable-next-line';
