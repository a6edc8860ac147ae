// Which documents are Job resources, and the facts the TTL rules need about
// each: its name, its `spec`, the TTL directly under it and any TTL written
// elsewhere in the Job (where Kubernetes ignores or rejects it).
import { asMap, findPair, getString, isMap, isPair, isScalar, isSeq, keyText, nodeSource, nodeSpan, Pair, ParsedDocument, scalarText, YAMLMap } from '../yaml/documents';

export const TTL_KEY = 'ttlSecondsAfterFinished';
const JOB_API_VERSIONS = new Set(['batch/v1', 'batch/v1beta1']);

export interface TtlFacts {
  pair: Pair;
  keySpan: [number, number];
  valueSpan: [number, number];
  /** The value as written ('' for an empty value). */
  source: string;
  /** The integer when the value is a plain non-negative integer, else null. */
  value: number | null;
}

export interface JobFacts {
  parsed: ParsedDocument;
  name: string | null;
  nameSpan: [number, number] | null;
  namespace: string | null;
  kindSpan: [number, number];
  /** The `spec` key, when the Job has one (whatever is under it). */
  specKeySpan: [number, number] | null;
  spec: YAMLMap | null;
  ttl: TtlFacts | null;
  misplaced: Array<TtlFacts & { path: string }>;
}

/** `kind: Job` with a batch apiVersion at the top of a document. */
export function isJobDocument(parsed: ParsedDocument): boolean {
  const { doc } = parsed;
  return getString(doc, doc.contents, 'kind') === 'Job' && JOB_API_VERSIONS.has(getString(doc, doc.contents, 'apiVersion') ?? '');
}

export function jobFacts(parsed: ParsedDocument): JobFacts {
  const { doc } = parsed;
  const root = asMap(doc, doc.contents)!;
  const kindPair = findPair(root, 'kind')!;
  const namePair = findPair(asMap(doc, findPair(root, 'metadata')?.value), 'name');
  const specPair = findPair(root, 'spec');
  const spec = asMap(doc, specPair?.value);
  const ttlPair = findPair(spec, TTL_KEY);
  return {
    parsed,
    name: namePair ? scalarText(doc, namePair.value) : null,
    nameSpan: namePair ? nodeSpan(parsed, namePair.value) : null,
    namespace: getString(doc, doc.contents, 'metadata', 'namespace'),
    kindSpan: nodeSpan(parsed, kindPair.value) ?? nodeSpan(parsed, kindPair.key)!,
    specKeySpan: specPair ? nodeSpan(parsed, specPair.key) : null,
    spec,
    ttl: ttlPair ? ttlFacts(parsed, ttlPair) : null,
    misplaced: misplacedTtls(parsed, root),
  };
}

function ttlFacts(parsed: ParsedDocument, pair: Pair): TtlFacts {
  const keySpan = nodeSpan(parsed, pair.key)!;
  const valueSpan = nodeSpan(parsed, pair.value) ?? [keySpan[1], keySpan[1]];
  const node = pair.value;
  const source = node ? nodeSource(parsed, node) : '';
  const plainInteger = isScalar(node) && node.type === 'PLAIN' && /^[0-9]+$/.test(source) && Number.isSafeInteger(node.value);
  return { pair, keySpan, valueSpan, source, value: plainInteger ? (node.value as number) : null };
}

/** Every `ttlSecondsAfterFinished` key in the Job except `spec.ttlSecondsAfterFinished`. */
function misplacedTtls(parsed: ParsedDocument, root: YAMLMap): Array<TtlFacts & { path: string }> {
  const found: Array<TtlFacts & { path: string }> = [];
  // An explicit stack, not recursion: a 10,000-deep document must not overflow.
  // Aliases are not followed, so an alias bomb is walked once, not expanded.
  const stack: Array<{ node: unknown; path: string }> = [{ node: root, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyText(pair) ?? '?';
        const childPath = path ? `${path}.${key}` : key;
        if (key === TTL_KEY && childPath !== `spec.${TTL_KEY}`) found.push({ ...ttlFacts(parsed, pair), path: childPath });
        stack.push({ node: pair.value, path: childPath });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, path: `${path}[${i}]` }));
    } else if (isPair(node)) {
      stack.push({ node: node.value, path });
    }
  }
  return found.sort((a, b) => a.keySpan[0] - b.keySpan[0]);
}
