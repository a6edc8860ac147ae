// Whether a text surely parses without a problem, known without parsing it. Nearly half of a
// repository's YAML needs only its syntax checked (no rule can fire in it), and most of that is
// the plain block YAML the kustomize fast reader reads (kustomize/simple-yaml.ts), many times
// faster than the parser. Where the fast reader reads every document whole, and the text holds
// nothing on which go-yaml and npm yaml part ways or the parser's checks turn on, the parse would
// report no problem: the audit then skips it (scanFiles). Loose only towards "not sure": every
// doubt sends the text to the parser, which then decides as it always has.
import { readSimpleYaml } from '../kustomize/simple-yaml';
import type { KNode } from '../kustomize/knode';
import { documentBoundaries } from './documents';
import { mayEscapeBadly } from './go-yaml';

/**
 * Characters the fast reader does not weigh: tabs (separation in some places, an error as
 * indentation), characters YAML refuses in a stream, the line breaks of YAML 1.1 that go-yaml still
 * reads as such (NEL, LS, PS), and a byte order mark inside the text.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNWEIGHED = /[\t\x00-\x08\x0B\x0C\x0E-\x1F\x7F\x85\u2028\u2029\uFEFF\uFFFE\uFFFF]/;

const LONE_CR = /\r(?!\n)/;

/**
 * What else go-yaml and npm yaml read differently (goYamlMayRefuse) the fast reader lets through:
 * only an anchor before a scalar (`name: &app plex`), whose name go-yaml cuts at a `.` (it reads
 * letters, digits, `_` and `-`). An alias, a tag, a directive or `...` makes the fast reader give
 * up, and an `*` or `&` inside a scalar (`*all* traffic`, prose in a CRD's description) is text.
 */
const DOTTED_ANCHOR = /&[A-Za-z0-9_-]*\./;

/** The `---` line that opens a document, when nothing but a comment follows it. */
const MARKER_LINE = /^---[ ]*(?:#[^\n]*)?(?:\r?\n|$)/;

/**
 * A plain key that may resolve to something other than a string (a number, a boolean, null, in
 * YAML 1.2 or 1.1): two keys written apart can then be one (`1` and `0x1`), which the parser's
 * duplicate check finds and the fast reader, comparing text, does not.
 */
const MAY_NOT_BE_STRING = /^(?:[-+.0-9~]|(?:true|false|null|yes|no|on|off|y|n)$)/i;

/** The parser's limit on an implicit key (from the key's start to its `:`, 1024), with a margin. */
const KEY_LIMIT = 1000;

/** Whether parsing `text` surely reports no problem (see the module's comment); false when not sure. */
export function surelyClean(text: string): boolean {
  // A lone carriage return breaks a line to the parser, not to the fast reader.
  if (UNWEIGHED.test(text) || LONE_CR.test(text) || mayEscapeBadly(text) || DOTTED_ANCHOR.test(text)) return false;
  const starts = documentBoundaries(text);
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i];
    const end = starts[i + 1] ?? text.length;
    const marker = MARKER_LINE.exec(text.slice(start, Math.min(end, start + 200)));
    const root = readSimpleYaml(text, marker ? start + marker[0].length : start, end);
    if (root === undefined || !keysAreSure(text, root)) return false;
  }
  return true;
}

/** Whether every key of the tree is a string within the parser's length that no other key can equal unseen. */
function keysAreSure(text: string, node: KNode | null): boolean {
  if (node === null || node.kind === 'scalar') return true;
  if (node.kind === 'seq') return node.items.every((item) => keysAreSure(text, item));
  return node.entries.every(({ keyNode, value }) => {
    if (keyNode === null || (keyNode.plain && MAY_NOT_BE_STRING.test(keyNode.text))) return false;
    // The fast reader allows only spaces between a key and its colon.
    return text.indexOf(':', keyNode.span[1]) - keyNode.span[0] < KEY_LIMIT && keysAreSure(text, value);
  });
}
