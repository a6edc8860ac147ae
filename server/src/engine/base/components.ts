// Strongly connected components of a graph given by its nodes and a next-function.

/** The strongly connected components (Tarjan's algorithm, iterative: deep chains do not overflow the stack). */
export function stronglyConnected<T>(nodes: readonly T[], next: (node: T) => readonly T[]): T[][] {
  const components: T[][] = [];
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: T; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = next(frame.node);
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      if (work.length > 0) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: T[] = [];
        let member: T;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** The size of each node's strongly connected component. */
export function componentSizes<T>(nodes: readonly T[], next: (node: T) => readonly T[]): Map<T, number> {
  const sizes = new Map<T, number>();
  for (const component of stronglyConnected(nodes, next)) for (const member of component) sizes.set(member, component.length);
  return sizes;
}
