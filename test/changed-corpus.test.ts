// `audit --changed-since` on real repositories (issue 22): changes of each kind made to corpus
// repositories, in memory. Two truths for each: what the changed-only audit reports equals the
// whole audit of the changed repository on the affected files (findings, and the summary's Job
// counts, which stay the whole repository's); and the affected files are enough: every file
// whose findings differ between the whole audits before and after the change is among them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { audit, type AuditResult } from '../server/src/engine/pipeline/audit';
import { auditChanged } from '../server/src/engine/pipeline/audit-changed';
import type { Finding } from '../server/src/engine/base/types';
import { filesOf, memoryFs } from './helpers/memory-fs';

const ROOT = join(__dirname, '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');

const brief = (finding: Finding) => `${finding.file}:${finding.range.start.line}:${finding.range.start.character} ${finding.rule} ${finding.severity} ${finding.message}`;

/** Each file's findings, in brief. */
function byFile(result: AuditResult): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const finding of result.findings) out.set(finding.file, [...(out.get(finding.file) ?? []), brief(finding)]);
  return out;
}

/** A change: the paths it rewrites (null deletes), found in the repository's own files; undefined where it has no such file. */
type Change = (files: Record<string, string>) => Record<string, string | null> | undefined;

const firstPath = (files: Record<string, string>, test: (text: string, path: string) => boolean) =>
  Object.keys(files)
    .sort()
    .find((path) => /\.ya?ml$/.test(path) && test(files[path], path));
const isJob = (text: string) => /^kind:\s*Job\s*$/m.test(text) && /^apiVersion:\s*batch\/v1\s*$/m.test(text);
const isFluxKustomization = (text: string) => /kustomize\.toolkit\.fluxcd\.io\//.test(text) && /^\s*path:\s*\S+/m.test(text);

const CHANGES: Record<string, Change> = {
  "a Job's TTL removed": (files) => {
    const path = firstPath(files, (text) => isJob(text) && /^\s+ttlSecondsAfterFinished:.*$/m.test(text));
    return path ? { [path]: files[path].replace(/^\s+ttlSecondsAfterFinished:.*\n/m, '') } : undefined;
  },
  'a Job file deleted': (files) => {
    const path = firstPath(files, isJob);
    return path ? { [path]: null } : undefined;
  },
  "a Flux Kustomization's path moved": (files) => {
    const path = firstPath(files, isFluxKustomization);
    return path ? { [path]: files[path].replace(/^(\s*path:\s*)(\S+)/m, '$1$2-moved') } : undefined;
  },
  'a variable source deleted': (files) => {
    const named = Object.values(files)
      .map((text) => /substituteFrom:\s*\n\s*-\s*kind:\s*ConfigMap\s*\n\s*name:\s*([\w.-]+)/.exec(text)?.[1])
      .find((name) => name !== undefined);
    const path = named && firstPath(files, (text) => /^kind:\s*ConfigMap\s*$/m.test(text) && new RegExp(`^\\s+name:\\s*${named.replace(/\./g, '\\.')}\\s*$`, 'm').test(text));
    return path ? { [path]: null } : undefined;
  },
  "a kustomization's last resource dropped": (files) => {
    const path = firstPath(files, (text, name) => /(^|\/)kustomization\.ya?ml$/.test(name) && /^resources:\s*\n(\s*-\s*\S+.*\n)+/m.test(text));
    return path ? { [path]: files[path].replace(/^(resources:\s*\n(?:\s*-\s*\S+.*\n)*?)\s*-\s*\S+.*\n(?!\s*-)/m, '$1') } : undefined;
  },
};

const REPOSITORIES: Array<[string, string]> = [
  ['examples/flux-repo', join(ROOT, 'examples', 'flux-repo')],
  ...['damacus__home-ops', 'tyriis__home-ops', 'equinor__radix-flux'].map((name): [string, string] => [name, join(CORPUS, name)]),
];

describe('audit --changed-since on real repositories', () => {
  for (const [name, dir] of REPOSITORIES) {
    test(`${name}: each kind of change`, { skip: existsSync(dir) ? false : `${dir} is not here` }, async () => {
      const before = filesOf(dir);
      const wholeBefore = byFile(await audit(memoryFs(before)));
      let tried = 0;
      for (const [what, change] of Object.entries(CHANGES)) {
        const edits = change(before);
        if (!edits) continue;
        const now = { ...before };
        for (const [path, text] of Object.entries(edits)) {
          if (text === null) delete now[path];
          else now[path] = text;
        }
        assert.notDeepEqual(now, before, `${what}: the change changes something`);
        const whole = await audit(memoryFs(now));
        const changed = await auditChanged({ fs: memoryFs(now), files: Object.keys(now).sort() }, new Set(Object.keys(edits)), () =>
          Promise.resolve({ fs: memoryFs(before), files: Object.keys(before).sort() }),
        );
        assert.ok(changed, `${what}: only some files are affected`);
        const { affected } = changed;
        // exact: the whole audit's findings on the affected files, and its Job counts
        assert.deepEqual(changed.findings.map(brief), whole.findings.filter((finding) => affected.has(finding.file)).map(brief), what);
        assert.deepEqual({ ...changed.summary, errors: 0, warnings: 0 }, { ...whole.summary, errors: 0, warnings: 0 }, `${what}: the Job counts`);
        // enough: a file whose findings the change altered is affected
        const wholeNow = byFile(whole);
        for (const path of new Set([...wholeBefore.keys(), ...wholeNow.keys()])) {
          if (JSON.stringify(wholeBefore.get(path) ?? []) !== JSON.stringify(wholeNow.get(path) ?? [])) {
            assert.ok(affected.has(path), `${what}: ${path} has other findings after the change, yet it is not affected`);
            if (!Object.hasOwn(edits, path)) reaching++;
          }
        }
        // the control: the changed-only audit is no whole audit in disguise (a deleted variable source may well reach every file)
        if (what !== 'a variable source deleted')
          assert.ok(
            [...wholeNow.keys()].some((path) => !affected.has(path)),
            `${what}: a file with findings is left out (${affected.size} affected)`,
          );
        tried++;
      }
      assert.ok(tried >= 2, `${tried} kinds of change found in the repository`);
    });
  }
  test('the cases are not vacuous: some changes reach files beyond their own', () => assert.ok(reaching > 0, `${reaching} files`));
});

/** Over all repositories: files whose findings a change altered though it did not touch them. */
let reaching = 0;
