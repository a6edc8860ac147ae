// The version of Flux Job Guard, written into every bundle by scripts/build.mjs
// (tsc-compiled tests run without it and say 0.0.0-dev).
declare const FLUX_JOB_GUARD_VERSION: string | undefined;

export const VERSION = typeof FLUX_JOB_GUARD_VERSION === 'string' ? FLUX_JOB_GUARD_VERSION : '0.0.0-dev';
