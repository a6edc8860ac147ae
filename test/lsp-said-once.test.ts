// What VS Code shows under the cursor says each fact once (issue 21): for every diagnostic and every
// `${NAME}` of the bundled example and the e2e workspace, the messages of the diagnostics there, their
// related lines and the hover repeat no phrase (six words in a row). And no message speaks of what
// "the contract requires" in a folder without a contract file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import type { Diagnostic, Hover, MarkupContent, Position, Range } from 'vscode-languageserver-protocol';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const REPO = join(__dirname, '..', '..');
const PHRASE_WORDS = 6;

after(() => removeTempRepos());

function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ya?ml|sh)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Words as a reader sees them: markdown, links and punctuation gone, case folded. */
function words(text: string): string[] {
  return text
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/```[\s\S]*?```/g, ' ')
    .toLowerCase()
    .split(/[^a-z0-9${}_.:/-]+/)
    .map((word) => word.replace(/^[.:]+|[.:]+$/g, ''))
    .filter(Boolean);
}

/** The phrases of `PHRASE_WORDS` words that two of the texts share (a text may repeat itself). */
export function repeatedPhrases(texts: string[]): string[] {
  const seenIn = new Map<string, number>();
  const repeated = new Set<string>();
  texts.forEach((text, index) => {
    const list = words(text);
    for (let start = 0; start + PHRASE_WORDS <= list.length; start++) {
      const phrase = list.slice(start, start + PHRASE_WORDS).join(' ');
      const first = seenIn.get(phrase);
      if (first === undefined) seenIn.set(phrase, index);
      else if (first !== index) repeated.add(phrase);
    }
  });
  return [...repeated];
}

const contains = (range: Range, position: Position) =>
  (range.start.line < position.line || (range.start.line === position.line && range.start.character <= position.character)) &&
  (position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character));

async function underTheCursor(client: TestLspClient, uri: string, diagnostics: Diagnostic[], position: Position): Promise<string[]> {
  const here = diagnostics.filter((diagnostic) => contains(diagnostic.range, position));
  const hover = await client.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position });
  return [
    ...here.map(messageText),
    ...here.flatMap((diagnostic) => (diagnostic.relatedInformation ?? []).map((related) => related.message)),
    ...(hover ? [(hover.contents as MarkupContent).value] : []),
  ];
}

function positionsOf(text: string, diagnostics: Diagnostic[]): Position[] {
  const positions = diagnostics.map((diagnostic) => diagnostic.range.start);
  text.split('\n').forEach((line, number) => {
    for (const match of line.matchAll(/\$\{/g)) positions.push({ line: number, character: match.index + 2 });
  });
  return positions;
}

for (const [name, root] of [
  ['the bundled example', join(REPO, 'examples/flux-repo')],
  ['the e2e workspace', join(REPO, 'test/e2e/fixtures/workspace')],
] as const) {
  test(`${name}: the diagnostics under the cursor and the hover say each thing once`, async () => {
    const client = new TestLspClient();
    try {
      await client.initialize(root);
      const problems: string[] = [];
      for (const file of filesBelow(root)) {
        const uri = fileUri(join(root, file));
        const text = readFileSync(join(root, file), 'utf8');
        client.open(uri, text, file.endsWith('.sh') ? 'shellscript' : 'yaml');
        const diagnostics = await client.waitForDiagnostics(uri, () => true).catch(() => []);
        for (const position of positionsOf(text, diagnostics)) {
          const texts = await underTheCursor(client, uri, diagnostics, position);
          for (const phrase of repeatedPhrases(texts)) problems.push(`${file}:${position.line + 1}:${position.character + 1}: "${phrase}"`);
        }
        client.close(uri);
      }
      assert.deepEqual([...new Set(problems)], []);
    } finally {
      await client.shutdown();
    }
  });
}

test('the phrase check finds a phrase two texts share, and not one a text repeats by itself (negative control)', () => {
  assert.deepEqual(repeatedPhrases(['Flux re-creates the Job about once a day.', 'It runs: Flux re-creates the Job about once, daily.']), ['flux re-creates the job about once']);
  assert.deepEqual(repeatedPhrases(['one two three four five six, one two three four five six']), []);
  assert.deepEqual(repeatedPhrases(['```text\nsame words in a code block here\n```', 'same words in a code block here']), [], 'a rendered line is shown, not said');
});

test('without a contract file no message speaks of what "the contract requires"', async () => {
  const root = tempRepo('fjg-said-', {
    'flux/apps.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n',
    'apps/job.yaml':
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  ttlSecondsAfterFinished: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n',
  });
  const client = new TestLspClient();
  try {
    await client.initialize(root);
    const uri = fileUri(join(root, 'apps/job.yaml'));
    client.open(uri, readFileSync(join(root, 'apps/job.yaml'), 'utf8'));
    const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'ttl-unexpected-value'));
    const texts = await underTheCursor(client, uri, diagnostics, { line: 5, character: 28 });
    assert.ok(texts.length >= 2, 'the diagnostic and the hover');
    for (const text of texts) assert.doesNotMatch(text, /the contract requires/);
    assert.match(texts.join('\n'), /the required value is 86400 \(the default: no contract file sets ttl\.required\)/);
  } finally {
    await client.shutdown();
  }
});
