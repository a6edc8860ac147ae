// A `$$` in a shell comment never reaches the shell as a PID (issue 18:
// `# $$ escapes Flux postBuild …` in mchestr__home-cluster's openclaw
// HelmRelease). The comment finder, table by table, then the rules on it,
// each with the same `$$` outside a comment as its negative control.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shellCommentRanges } from '../server/src/engine/rules/support/shell-comments';
import { job, kustomization } from './helpers/flux-fixtures';
import { auditFiles } from './helpers/memory-fs';

/** The comments of a script, as text. */
const comments = (script: string) => shellCommentRanges(script).map(([start, end]) => script.slice(start, end));

describe('the comments of a shell script', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a line comment', 'set -eu\n# $$ escapes Flux\necho hi', ['# $$ escapes Flux']],
    ['an indented one, after a command, after an operator', '  # one\necho a # two\nb;# three\n(#four\n)', ['# one', '# two', '# three', '#four']],
    ['the last line, without a line break', 'echo a\n#end', ['#end']],
    ['a # inside a word, $# and ${#x} are not comments', 'echo a#b $# ${#x} ${x#pre} $((16#ff))', []],
    ['a # in quotes is not a comment', `echo "# $$" '# $$' $'\\' # $$' "a \\" # b"`, []],
    ['…but one after the quotes is', `echo "x" # $$ after`, ['# $$ after']],
    ['a here-document body is not read for comments', 'cat <<EOF\n# $$ is the pid\nEOF\n# after', ['# after']],
    ['quoted and tab-stripped delimiters, and two bodies on one line', 'cat <<\'A\' <<-"B"\n# a\nA\n\t# b\n\tB\n# c', ['# c']],
    ['a here-string is no here-document', 'cat <<< x\n# c', ['# c']],
    ['a backslash escapes the #', 'echo \\# not a comment', []],
  ];
  for (const [what, script, expected] of cases) test(what, () => assert.deepEqual(comments(script), expected));
});

const CONTRACT = 'jobs:\n  include: ["**/*.yaml"]\nflux:\n  roots: [flux]\nrules:\n  ttl-convergence-note: "off"\n';
const POST_BUILD = '  postBuild:\n    substitute:\n      CLUSTER: home\n';
const DOLLAR_RULES = new Set(['flux-substitution-pid', 'flux-substitution-needless-escape', 'pod-kubelet-dollar']);

/** A Job (command `sh -c` the script), or a ConfigMap holding it as run.sh. */
function fileWith(kind: 'job' | 'configmap', script: string): string {
  const body = script
    .split('\n')
    .map((line) => `              ${line}`)
    .join('\n');
  if (kind === 'job') return job('j', 'it only reads', `          command:\n            - /bin/sh\n            - -c\n            - |\n${body}\n`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\ndata:\n  run.sh: |\n${body.replace(/^ {10}/gm, '')}\n`;
}

async function dollarRules(postBuild: boolean, kind: 'job' | 'configmap', script: string): Promise<string[]> {
  const files = { '.flux-job-guard.yaml': CONTRACT, 'flux/apps.yaml': kustomization('apps', './apps', postBuild ? POST_BUILD : ''), 'apps/file.yaml': fileWith(kind, script) };
  return (await auditFiles(files)).findings.filter((finding) => DOLLAR_RULES.has(finding.rule)).map((finding) => `${finding.rule}:${finding.range.start.line}`);
}

describe('the $$ rules do not read shell comments', () => {
  test('flux-substitution-pid: "# $$ escapes Flux" under postBuild, in a Job and in a ConfigMap script (negative control: the same $$ in a command)', async () => {
    for (const kind of ['job', 'configmap'] as const) {
      assert.deepEqual(await dollarRules(true, kind, 'set -eu\n# $$ escapes Flux postBuild so the shell receives a literal $.\nmkdir -p "$$BIN"'), [], kind);
      const line = kind === 'job' ? 18 : 7;
      assert.deepEqual(await dollarRules(true, kind, 'set -eu\necho $$ escapes Flux postBuild\nmkdir -p "$$BIN"'), [`flux-substitution-pid:${line}`], kind);
    }
  });

  test('a comment after a command: the $$ before it is read, the one in it is not', async () => {
    assert.deepEqual(await dollarRules(true, 'job', 'echo $$ > /run/pid # was $$ before'), ['flux-substitution-pid:17']);
  });

  test('a # in quotes or in a here-document body starts no comment: the $$ there is reported', async () => {
    assert.deepEqual(await dollarRules(true, 'configmap', 'echo "# $$ is my pid"'), ['flux-substitution-pid:6']);
    assert.deepEqual(await dollarRules(true, 'configmap', 'cat <<EOF\n# $$ is my pid\nEOF'), ['flux-substitution-pid:7']);
  });

  test('pod-kubelet-dollar: "# $$" in a Job without postBuild (negative control: the same $$ in a command)', async () => {
    assert.deepEqual(await dollarRules(false, 'job', '# write $$ to keep a PID\necho ok'), []);
    assert.deepEqual(await dollarRules(false, 'job', 'echo $$ > /run/pid\necho ok'), ['pod-kubelet-dollar:17']);
  });

  test('flux-substitution-needless-escape: "# $${VAR}" in a ConfigMap script without postBuild (negative control: the same text in a command)', async () => {
    assert.deepEqual(await dollarRules(false, 'configmap', '# was $${HOME} under Flux\necho ok'), []);
    assert.deepEqual(await dollarRules(false, 'configmap', 'echo $${HOME}\necho ok'), ['flux-substitution-needless-escape:6']);
  });
});
