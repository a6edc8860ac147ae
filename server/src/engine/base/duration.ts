// Go durations as Flux writes them (`1h`, `10m`, `1h30m`, `90s`, `500ms`).

const UNITS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001, µs: 0.000001, ns: 0.000000001 };

/** Seconds, or null when the text is not a Go duration. */
export function parseGoDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const pattern = /([0-9]*\.?[0-9]+)(h|ms|us|µs|ns|m|s)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(trimmed); match; match = pattern.exec(trimmed)) {
    total += Number(match[1]) * UNITS[match[2]];
    consumed = pattern.lastIndex;
  }
  return consumed === trimmed.length && consumed > 0 ? total : null;
}

/** `24 h`, `90 min`, `45 s`: a period for people. */
export function humanDuration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
