// Exact names from the objects of the repository that make Secrets: each
// producer's Secret (its name, its namespace) and the keys it will hold, or
// why they cannot be known (then one flux-variables-unknown where it says so).
// Every known case has its negative control: a typo of a name the producer
// defines is flux-substitution-undefined. The hover says where each name
// comes from (DefinedVariable.from); a value is never shown.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRepoIndex, readContract } from '../server/src/engine/pipeline/audit';
import { gotkSync, job, kustomization } from './helpers/flux-fixtures';
import { auditFiles, brief, memoryFs } from './helpers/memory-fs';

/** Kustomization apps substitutes from Secret `secret` (in flux-system); its Job uses `names` in env values. */
function repo(producer: string, secret: string, names: string[]): Record<string, string> {
  const env = names.map((n, i) => `            - {name: V${i}, value: "\${${n}}"}\n`).join('');
  return {
    'clusters/a/flux-system/gotk-sync.yaml': gotkSync('./clusters/a'),
    'clusters/a/producer.yaml': producer,
    'clusters/a/apps.yaml': kustomization('apps', './apps', `  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: ${secret}\n`),
    'apps/job.yaml': job('app', 'it only reads', `          env:\n${env}`),
  };
}

async function findings(files: Record<string, string>): Promise<string[]> {
  const result = await auditFiles(files);
  return result.findings.filter((f) => f.rule.startsWith('flux-')).map(brief);
}

/** What the hover says a name comes from, and its value, for Kustomization apps. */
async function definition(files: Record<string, string>, name: string): Promise<[string, string] | undefined> {
  const fs = memoryFs(files);
  const { contract } = await readContract(fs, {});
  const index = await buildRepoIndex(fs, Object.keys(files), contract);
  const defined = index
    .fluxGraph()
    .liveBuilders()
    .find((b) => b.kustomization.name === 'apps')
    ?.vars?.defined.get(name);
  return defined ? [defined.from, defined.value] : undefined;
}

const ES_HEAD = 'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: es\n  namespace: flux-system\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n';

/** A producer that shows its keys: `defines` are its names (first one's origin checked), a typo of the first is undefined. */
interface Known {
  name: string;
  producer: string;
  secret: string;
  defines: string[];
  from: string;
  /** A name written near it that the Secret does not hold (the producer's rules drop it). */
  dropped?: string;
}

const KNOWN: Known[] = [
  {
    name: 'ExternalSecret: data[].secretKey, the Secret spec.target.name',
    producer: ES_HEAD + '  target: {name: app-secrets}\n  data:\n    - secretKey: TOKEN\n      remoteRef: {key: app, property: token}\n',
    secret: 'app-secrets',
    defines: ['TOKEN'],
    from: 'ExternalSecret es (data[0].secretKey)',
  },
  {
    name: "ExternalSecret: a template (mergePolicy Replace, the default) decides the keys: data's own keys are not written",
    producer: ES_HEAD + '  target:\n    template:\n      data:\n        DB_URL: "postgres://{{ .password }}@db"\n  data:\n    - secretKey: password\n      remoteRef: {key: db}\n',
    secret: 'es',
    defines: ['DB_URL'],
    from: 'ExternalSecret es (target.template.data)',
    dropped: 'password',
  },
  {
    name: 'ExternalSecret: mergePolicy Merge keeps data[] and the template',
    producer: ES_HEAD + '  target:\n    template:\n      mergePolicy: Merge\n      data:\n        DB_URL: "x"\n  data:\n    - secretKey: PASSWORD\n      remoteRef: {key: db}\n',
    secret: 'es',
    defines: ['DB_URL', 'PASSWORD'],
    from: 'ExternalSecret es (target.template.data)',
  },
  {
    name: 'ExternalSecret: dataFrom with a template (Replace): the template decides',
    producer: ES_HEAD + '  target:\n    template:\n      data:\n        DOMAIN: "{{ .domain }}"\n  dataFrom:\n    - extract: {key: homelab}\n',
    secret: 'es',
    defines: ['DOMAIN'],
    from: 'ExternalSecret es (target.template.data)',
  },
  {
    name: 'ExternalSecret: templateFrom a ConfigMap, rendered as Values, keeps its keys',
    producer: ES_HEAD + '  target:\n    template:\n      templateFrom:\n        - configMap:\n            name: tpl\n            items:\n              - key: CONFIG_JSON\n',
    secret: 'es',
    defines: ['CONFIG_JSON'],
    from: 'ExternalSecret es (target.template.templateFrom[0])',
  },
  {
    name: 'ClusterExternalSecret: externalSecretSpec.target.name, data[].secretKey, in the namespaces it lists',
    producer:
      'apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata:\n  name: ces\nspec:\n  externalSecretName: per-namespace\n  namespaces: [flux-system]\n  externalSecretSpec:\n    secretStoreRef: {kind: ClusterSecretStore, name: vault}\n    target: {name: shared-secrets}\n    data:\n      - secretKey: SHARED_TOKEN\n        remoteRef: {key: shared}\n',
    secret: 'shared-secrets',
    defines: ['SHARED_TOKEN'],
    from: 'ClusterExternalSecret ces (externalSecretSpec.data[0].secretKey)',
  },
  {
    name: 'ClusterExternalSecret: without a target name, the ExternalSecret name (externalSecretName)',
    producer:
      'apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata:\n  name: ces\nspec:\n  externalSecretName: per-namespace\n  namespaceSelector: {matchLabels: {team: a}}\n  externalSecretSpec:\n    data:\n      - secretKey: SHARED_TOKEN\n        remoteRef: {key: shared}\n',
    secret: 'per-namespace',
    defines: ['SHARED_TOKEN'],
    from: 'ClusterExternalSecret ces (externalSecretSpec.data[0].secretKey)',
  },
  {
    name: "SealedSecret: the template's Secret name, keys of encryptedData and template.data",
    producer:
      'apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: sealed\n  namespace: flux-system\nspec:\n  encryptedData:\n    API_KEY: AgBy3i4OJSWK+PiTySYZZA==\n  template:\n    metadata:\n      name: app-sealed\n    data:\n      REGION: eu-west-1\n',
    secret: 'app-sealed',
    defines: ['API_KEY', 'REGION'],
    from: 'SealedSecret sealed (encryptedData)',
  },
  {
    name: 'SOPS-encrypted Secret: the key names are plain text',
    producer:
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: sops-secrets\n  namespace: flux-system\ndata:\n  PASSWORD: ENC[AES256_GCM,data:c2VjcmV0,iv:abc,tag:def,type:str]\nsops:\n  version: 3.9.0\n',
    secret: 'sops-secrets',
    defines: ['PASSWORD'],
    from: 'Secret sops-secrets',
  },
  {
    name: 'InfisicalSecret: a managed Secret whose template does not include all secrets',
    producer:
      'apiVersion: secrets.infisical.com/v1alpha1\nkind: InfisicalSecret\nmetadata:\n  name: inf\n  namespace: flux-system\nspec:\n  managedKubeSecretReferences:\n    - secretName: inf-secrets\n      secretNamespace: flux-system\n      template:\n        includeAllSecrets: false\n        data:\n          DSN: "{{ .DB.Value }}"\n',
    secret: 'inf-secrets',
    defines: ['DSN'],
    from: 'InfisicalSecret inf (managedKubeSecretReferences[0].template.data)',
  },
  {
    name: 'VaultStaticSecret: excludeRaw with templates writes only the templates',
    producer:
      'apiVersion: secrets.hashicorp.com/v1beta1\nkind: VaultStaticSecret\nmetadata:\n  name: vss\n  namespace: flux-system\nspec:\n  destination:\n    name: vault-secrets\n    transformation:\n      excludeRaw: true\n      templates:\n        URL:\n          text: "{{ .Secrets.url }}"\n',
    secret: 'vault-secrets',
    defines: ['URL'],
    from: 'VaultStaticSecret vss (destination.transformation.templates)',
  },
  {
    name: 'BitwardenSecret: onlyMappedSecrets with map',
    producer:
      'apiVersion: k8s.bitwarden.com/v1\nkind: BitwardenSecret\nmetadata:\n  name: bw\n  namespace: flux-system\nspec:\n  secretName: bw-secrets\n  onlyMappedSecrets: true\n  map:\n    - bwSecretId: 0b1c\n      secretKeyName: SMTP_PASSWORD\n',
    secret: 'bw-secrets',
    defines: ['SMTP_PASSWORD'],
    from: 'BitwardenSecret bw (map[0].secretKeyName)',
  },
];

describe('producers that show their keys', () => {
  for (const c of KNOWN) {
    test(c.name, async () => {
      const files = repo(c.producer, c.secret, c.defines);
      assert.deepEqual(await findings(files), [], 'every name the producer defines is defined');
      const [from, value] = (await definition(files, c.defines[0]))!;
      assert.equal(from, c.from);
      assert.ok(!/c2VjcmV0|AgBy3i|^secret$/.test(value), `no value shown or decoded: ${value}`);
      // Negative control: a typo of a name it defines is undefined.
      const typo = repo(c.producer, c.secret, [...c.defines, c.defines[0] + 'X']);
      assert.deepEqual(await findings(typo), [`flux-substitution-undefined apps/job.yaml:${15 + c.defines.length}:34`]);
      if (c.dropped) assert.deepEqual(await findings(repo(c.producer, c.secret, [c.dropped])), ['flux-substitution-undefined apps/job.yaml:15:34'], `${c.dropped} is not in the Secret`);
    });
  }
});

/** A producer whose keys the repository does not show: the Secret exists, its names are unknown; said once, where. */
const UNKNOWN: Array<{ name: string; producer: string; secret: string; at: string; why: RegExp }> = [
  {
    name: 'ExternalSecret: dataFrom without a template',
    producer: ES_HEAD + '  dataFrom:\n    - extract: {key: homelab}\n',
    secret: 'es',
    at: '8:3',
    why: /ExternalSecret es fills it from the secret store with dataFrom/,
  },
  {
    name: 'ExternalSecret: dataFrom with mergePolicy Merge',
    producer: ES_HEAD + '  target:\n    template:\n      mergePolicy: Merge\n      data:\n        A: x\n  dataFrom:\n    - extract: {key: homelab}\n',
    secret: 'es',
    at: '13:3',
    why: /dataFrom \(mergePolicy: Merge\)/,
  },
  {
    name: 'ExternalSecret: templateFrom a literal',
    producer: ES_HEAD + '  target:\n    template:\n      templateFrom:\n        - literal: "{{ .x }}"\n          target: Data\n',
    secret: 'es',
    at: '10:7',
    why: /writes keys from templateFrom\[0\]/,
  },
  {
    name: 'ClusterExternalSecret: dataFrom',
    producer:
      'apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata:\n  name: ces\nspec:\n  namespaceSelector: {}\n  externalSecretSpec:\n    dataFrom:\n      - extract: {key: all}\n',
    secret: 'ces',
    at: '8:5',
    why: /ClusterExternalSecret ces fills it from the secret store with dataFrom/,
  },
  {
    name: 'InfisicalSecret: managedSecretReference without a template',
    producer:
      'apiVersion: secrets.infisical.com/v1alpha1\nkind: InfisicalSecret\nmetadata:\n  name: inf\n  namespace: flux-system\nspec:\n  managedSecretReference:\n    secretName: inf-secrets\n    secretNamespace: flux-system\n',
    secret: 'inf-secrets',
    at: '8:5',
    why: /InfisicalSecret inf fills it with the keys of the Infisical project/,
  },
  {
    name: '1Password OnePasswordItem: the Secret of its own name',
    producer: 'apiVersion: onepassword.com/v1\nkind: OnePasswordItem\nmetadata:\n  name: op-secrets\n  namespace: flux-system\nspec:\n  itemPath: vaults/home/items/cluster\n',
    secret: 'op-secrets',
    at: '2:1',
    why: /OnePasswordItem op-secrets fills it with the keys of the 1Password item/,
  },
  {
    name: 'VaultDynamicSecret: spec.destination.name',
    producer: 'apiVersion: secrets.hashicorp.com/v1beta1\nkind: VaultDynamicSecret\nmetadata:\n  name: vds\n  namespace: flux-system\nspec:\n  mount: db\n  destination:\n    name: db-creds\n',
    secret: 'db-creds',
    at: '2:1',
    why: /VaultDynamicSecret vds fills it with the keys of the Vault path/,
  },
  {
    name: 'DopplerSecret: spec.managedSecret.name',
    producer:
      'apiVersion: secrets.doppler.com/v1alpha1\nkind: DopplerSecret\nmetadata:\n  name: dop\n  namespace: doppler-operator-system\nspec:\n  managedSecret:\n    name: doppler-secrets\n    namespace: flux-system\n',
    secret: 'doppler-secrets',
    at: '2:1',
    why: /DopplerSecret dop fills it with the keys of the Doppler config/,
  },
  {
    name: 'BitwardenSecret: spec.secretName (all of the project)',
    producer: 'apiVersion: k8s.bitwarden.com/v1\nkind: BitwardenSecret\nmetadata:\n  name: bw\n  namespace: flux-system\nspec:\n  secretName: bw-secrets\n',
    secret: 'bw-secrets',
    at: '2:1',
    why: /BitwardenSecret bw fills it with the keys of the Bitwarden project/,
  },
];

describe("producers whose keys the repository does not show: one finding, at the producer's document", () => {
  for (const c of UNKNOWN) {
    test(c.name, async () => {
      const result = await auditFiles(repo(c.producer, c.secret, ['SOME_NAME']));
      const flux = result.findings.filter((f) => f.rule.startsWith('flux-'));
      assert.deepEqual(flux.map(brief), [`flux-variables-unknown clusters/a/producer.yaml:${c.at}`]);
      assert.match(flux[0].message, c.why);
      // Negative control: where the Kustomization reads another Secret, the producer says nothing of it.
      assert.deepEqual(
        (await findings(repo(c.producer, 'elsewhere', ['SOME_NAME']))).map((f) => f.replace(/:\d+:\d+$/, '')),
        ['flux-variables-unknown clusters/a/apps.yaml'],
      );
    });
  }
});
