// A small Flux repository for the editor services' table tests: one cluster
// (gotk-sync root), Kustomization `apps` with inline substitute and
// substituteFrom a ConfigMap and a SOPS Secret, Kustomization `infra` with a
// variable of its own, a Job, a script a configMapGenerator reads, and an
// archived Job nothing applies (the negative controls).
import { readContract, buildRepoIndex } from '../../server/src/engine/pipeline/audit';
import type { Contract } from '../../server/src/engine/contract/model';
import type { RepoIndex } from '../../server/src/engine/pipeline/repo-index';
import { gotkSync, job, kustomization } from './flux-fixtures';
import { memoryFs } from './memory-fs';

export const GOTK_SYNC = gotkSync('./clusters/home');

export const APPS = kustomization(
  'apps',
  './apps',
  `  postBuild:
    substitute:
      CLUSTER_NAME: home # the cluster's name
    substituteFrom:
      - {kind: ConfigMap, name: cluster-settings}
      - {kind: Secret, name: cluster-secrets}
`,
);

export const INFRA = kustomization('infra', './infra', '  postBuild:\n    substitute:\n      INFRA_ONLY: x\n');

export const SETTINGS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-settings
  namespace: flux-system
data:
  TIMEZONE: Europe/Paris
  LONG_TEXT: "0123456789012345678901234567890123456789-and-more"
`;

export const SECRETS = `apiVersion: v1
kind: Secret
metadata:
  name: cluster-secrets
  namespace: flux-system
stringData:
  DB_PASSWORD: ENC[AES256_GCM,data:c2VjcmV0,iv:abc,tag:def,type:str]
sops:
  version: 3.9.0
`;

export const APPS_KUSTOMIZATION = `resources:
  - job.yaml
configMapGenerator:
  - name: scripts
    files:
      - backup.sh=scripts/backup.sh
`;

export const JOB = job(
  'report',
  'it only reads; ${CLUSTER_NAME} in a comment is not substituted',
  '          command: ["/bin/sh", "-c", "echo ${CLUSTER_NAME} ${DB_PASSWORD} ${TZ:=UTC} ${UNSET} $${HOME} $$$$"]\n' + '          env:\n            - {name: TIMEZONE, value: "${TIMEZONE}"}\n',
);

export const SCRIPT = '#!/bin/sh\necho "${CLUSTER_NAME}" > /tmp/name; for d in $${DIRS}; do :; done\n';

export const ARCHIVED = JOB.replace('name: report', 'name: old-report');

export const INFRA_JOB = JOB.replace('name: report', 'name: infra-report').replace(/\$\{CLUSTER_NAME\}/g, '${INFRA_ONLY}');

export const FILES: Record<string, string> = {
  'clusters/home/flux-system/gotk-sync.yaml': GOTK_SYNC,
  'clusters/home/apps.yaml': APPS,
  'clusters/home/infra.yaml': INFRA,
  'clusters/home/cluster-settings.yaml': SETTINGS,
  'clusters/home/cluster-secrets.sops.yaml': SECRETS,
  'apps/kustomization.yaml': APPS_KUSTOMIZATION,
  'apps/job.yaml': JOB,
  'apps/scripts/backup.sh': SCRIPT,
  'infra/job.yaml': INFRA_JOB,
  'archive/job.yaml': ARCHIVED,
};

/** Kustomizations apps-2 … apps-`count` building ./apps too, one file each: with `apps`, `count` of them apply apps/job.yaml. */
export function moreApps(count: number, interval = '1h'): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count - 1 }, (_, i): [string, string] => [`clusters/home/apps-${i + 2}.yaml`, kustomization(`apps-${i + 2}`, './apps', '', interval)]));
}

export interface Repo {
  index: RepoIndex;
  contract: Contract;
  files: Record<string, string>;
  read: (path: string) => Promise<string | undefined>;
}

/** The repository (`base`, FILES by default, with `changes` written over it) as the editor services see it. */
export async function repo(changes: Record<string, string | undefined> = {}, contractText?: string, base: Record<string, string> = FILES): Promise<Repo> {
  const files: Record<string, string> = { ...base };
  for (const [path, text] of Object.entries(changes)) {
    if (text === undefined) delete files[path];
    else files[path] = text;
  }
  if (contractText !== undefined) files['.flux-job-guard.yaml'] = contractText;
  const fs = memoryFs(files);
  const { contract } = await readContract(fs, {});
  const index = await buildRepoIndex(fs, Object.keys(files), contract);
  return { index, contract, files, read: (path) => Promise.resolve(files[path]) };
}

/** The offset of the `n`th (0-based) occurrence of `needle` in `text`, plus `shift`. */
export function at(text: string, needle: string, shift = 0, n = 0): number {
  let offset = -1;
  for (let i = 0; i <= n; i++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset === -1) throw new Error(`${needle} (#${n}) is not in the text`);
  }
  return offset + shift;
}

/** `line:start-end` of a one-line span (0-based), or `line:start-line:end` across lines. */
export function place(text: string, span: [number, number]): string {
  const position = (offset: number) => {
    const before = text.slice(0, offset).split('\n');
    return { line: before.length - 1, character: before[before.length - 1].length };
  };
  const start = position(span[0]);
  const end = position(span[1]);
  return start.line === end.line ? `${start.line}:${start.character}-${end.character}` : `${start.line}:${start.character}-${end.line}:${end.character}`;
}
