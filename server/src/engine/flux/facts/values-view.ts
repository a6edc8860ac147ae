// The text the facts of a file are read from. A HelmRelease's `spec.values`
// is most of its text (a chart's whole configuration) and the model reads
// little of it: the accounts a chart makes (`serviceAccount`,
// `fullnameOverride`), a Flux Operator's `instance`, the mutating webhook's
// image. Where the values mention none of those, their lines are blanked.
// A CustomResourceDefinition gives no fact at all (extract.ts reads nothing of
// a kind of a `*.k8s.io` group but a pod's account, and it has no pod), and
// CRDs are the densest YAML of a repository: their documents are blanked too.
// Blanked text is spaces (line breaks stay), which the parse that reads the
// facts skips about as fast as a block scalar's lines (comments would cost it
// five times as much), while every offset, line and column stays the file's.
// Facts are always read from this view, in the editor and the audit alike,
// so the two never disagree; the rules parse the file itself.
//
// Only a block the line scan is sure of is blanked: `values:` alone on its
// line at the spec's indentation, under a top-level `spec:`, its lines
// indented deeper and ended by a key of the spec or of the document, with no
// tab indentation in it and no alias in the rest of the document (it could
// name an anchor in the block). One consequence is written down: a YAML error
// inside such a block no longer hides the HelmRelease's facts (the rules
// still report it).
import { documentBoundaries } from '../../yaml/documents';

/** What in a HelmRelease's values a fact reads (account-creators.ts, start.ts). */
const READ_IN_VALUES = /serviceAccount|fullnameOverride|instance:|kustomize-mutating-webhook/;
/** An alias where YAML reads one (loose: prose in a block scalar can look like one). */
const MAY_ALIAS = /(?:^[ \t]*(?:-[ \t]+)*|[:,[{?][ \t]*)\*[^\s,[\]{}*&]/m;
const TAB_INDENT = /^ *\t/m;
const HELM_RELEASE = /^kind:[ \t]*["']?HelmRelease["']?[ \t]*(?:#.*)?\r?$/m;
const FLUX_HELM_API = /^apiVersion:[ \t]*["']?helm\.toolkit\.fluxcd\.io\//m;
const SPEC = /^spec:[ \t]*(?:#.*)?\r?$/m;
const CRD_KIND = /^kind:[ \t]*["']?CustomResourceDefinition["']?[ \t]*(?:#.*)?\r?$/m;
const CRD_API = /^apiVersion:[ \t]*["']?apiextensions\.k8s\.io\//m;
/** A document's directives and its `---` line (with nothing but a comment after it), which a blanked document keeps. */
const DOCUMENT_START = /^(?:%[^\n]*\n)*(?:---[ \t]*(?:#[^\n]*)?\r?(?:\n|$))?/;
/** A plain key, then `:` and a space or the line's end. */
const KEY_LINE = /^[A-Za-z0-9_][\w.-]*:(?:[ \t]|\r?$)/;

/** `text` with the values blocks and definitions no fact reads blanked, or null where none is (read the text itself). */
export function factsView(text: string): string | null {
  const values = text.includes('HelmRelease') && text.includes('values:');
  const definitions = text.includes('CustomResourceDefinition');
  if (!values && !definitions) return null;
  const starts = documentBoundaries(text);
  const blocks: Array<[number, number]> = [];
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? text.length;
    const block = (definitions ? definitionBody(text, start, end) : null) ?? (values ? blankableValues(text, start, end) : null);
    if (block) blocks.push(block);
  });
  if (blocks.length === 0) return null;
  let view = '';
  let at = 0;
  for (const [from, to] of blocks) {
    view += text.slice(at, from) + blanked(text.slice(from, to));
    at = to;
  }
  return view + text.slice(at);
}

/** Every character but line breaks made a space. */
function blanked(block: string): string {
  return block.includes('\r')
    ? block.replace(/[^\r\n]/g, ' ')
    : block
        .split('\n')
        .map((line) => ' '.repeat(line.length))
        .join('\n');
}

/** [from, to) of a CustomResourceDefinition document after its `---` line, or null where the document is none. */
function definitionBody(text: string, start: number, end: number): [number, number] | null {
  const chunk = text.slice(start, end);
  if (!CRD_KIND.test(chunk) || !CRD_API.test(chunk)) return null;
  const from = start + DOCUMENT_START.exec(chunk)![0].length;
  // A marker line with content after it (`--- {…}`) is left to the parser.
  return text.startsWith('---', from) ? null : [from, end];
}

interface Line {
  start: number;
  end: number;
  indent: number;
  /** Nothing but spaces, or a comment. */
  blank: boolean;
}

/** [from, to) of the lines of one document's `spec.values` block, where it can be blanked. */
function blankableValues(text: string, start: number, end: number): [number, number] | null {
  const chunk = text.slice(start, end);
  if (!HELM_RELEASE.test(chunk) || !FLUX_HELM_API.test(chunk)) return null;
  const spec = SPEC.exec(chunk);
  if (!spec) return null;
  const lines = linesOf(text, start + spec.index, end).slice(1);
  const first = lines.find((line) => !line.blank);
  if (!first || first.indent === 0) return null;
  const specIndent = first.indent;
  const valuesKey = lines.findIndex((line) => line.indent === specIndent && /^values:[ \t]*(?:#.*)?\r?$/.test(text.slice(line.start + specIndent, line.end)));
  if (valuesKey === -1 || lines.slice(0, valuesKey).some((line) => !line.blank && line.indent < specIndent)) return null;
  let last = valuesKey;
  let next = valuesKey + 1;
  for (; next < lines.length; next++) {
    if (lines[next].blank) continue;
    if (lines[next].indent <= specIndent) break;
    last = next;
  }
  if (last === valuesKey) return null; // `values:` with nothing under it
  const ending = lines[next];
  // What ends the block must be a key of the spec or of the document: anything else (a quoted
  // scalar's continuation, a sequence at the key's indentation) is left to the parser.
  if (ending && !((ending.indent === specIndent || ending.indent === 0) && KEY_LINE.test(text.slice(ending.start + ending.indent, ending.end)))) return null;
  const from = lines[valuesKey + 1].start;
  const to = lines[last].end;
  const block = text.slice(from, to);
  if (READ_IN_VALUES.test(block) || TAB_INDENT.test(block)) return null;
  // Anchors and aliases inside the block go with it; an alias outside it could name an anchor in it.
  return mayAlias(text.slice(start, from)) || mayAlias(text.slice(to, end)) ? null : [from, to];
}

/** (The regex tries every offset: most texts have no `*` at all.) */
function mayAlias(text: string): boolean {
  return text.includes('*') && MAY_ALIAS.test(text);
}

/** The lines of `text[start, end)`, split at `\n` (a `\r` before it stays part of the line). */
function linesOf(text: string, start: number, end: number): Line[] {
  const lines: Line[] = [];
  for (let at = start; at < end;) {
    let lineEnd = text.indexOf('\n', at);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    let indent = 0;
    while (text[at + indent] === ' ') indent++;
    const first = at + indent < lineEnd ? text[at + indent] : '\n';
    lines.push({ start: at, end: lineEnd, indent, blank: first === '\n' || first === '\r' || first === '#' });
    at = lineEnd + 1;
  }
  return lines;
}
