// Small helpers over Maps that the model's indexes use.

/** Appends `value` to the list under `key` (a multimap). */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The key counted most (ties: the first in code-point order). */
export function mostCommon(counts: Map<string, number>): string | undefined {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}
