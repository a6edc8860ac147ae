// What an alias names. npm yaml's `Alias.resolve` walks the whole document at
// every call; a chart's values with a few hundred aliases made that walk the
// costliest part of reading their facts. Here each document is walked once,
// and every alias gets what `resolve` would give: the last node before it
// anchored with its name.
import { Alias, Document, isAlias, Node, visit } from 'yaml';

const targetsByDocument = new WeakMap<Document, Map<Alias, Node | undefined>>();

export function aliasTarget(doc: Document, alias: Alias): Node | undefined {
  let targets = targetsByDocument.get(doc);
  if (targets === undefined) targetsByDocument.set(doc, (targets = aliasTargets(doc)));
  // An alias not in the document's tree (none is made after the parse) is resolved as npm yaml does.
  return targets.has(alias) ? targets.get(alias) : alias.resolve(doc);
}

function aliasTargets(doc: Document): Map<Alias, Node | undefined> {
  const anchored = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) targets.set(node, anchored.get(node.source));
      else if (node.anchor) anchored.set(node.anchor, node);
    },
  });
  return targets;
}
