// Structural equality of plain data (what YAML's toJSON gives, and the
// engine's summaries, whose Maps and Sets are compared entry by entry in
// order), without Node's util, so the browser build shares it. Iterative:
// deep data is fine.
export function dataEqual(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (Object.is(x, y)) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    if (x instanceof Map || x instanceof Set) {
      const [itemsX, itemsY] = [[...(x as Map<unknown, unknown>).entries()], [...(y as Map<unknown, unknown>).entries()]];
      if (itemsX.length !== itemsY.length) return false;
      itemsX.forEach((item, i) => stack.push([item, itemsY[i]]));
      continue;
    }
    const keysX = Object.keys(x);
    const keysY = Object.keys(y);
    if (keysX.length !== keysY.length) return false;
    for (const key of keysX) {
      if (!Object.prototype.hasOwnProperty.call(y, key)) return false;
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}
