// The source stage as the apply stage asks it: which artifact a Kustomization
// builds from in a world: this repository (with its GitRepository's
// `spec.ignore`), a sub-folder pushed as a repository of its own, a folder the
// contract maps a source to (`flux.sources`), an ExternalArtifact made of
// copied folders; or none, when its source is not this repository there. One
// artifact per source object, shared by every build.
import { push } from '../../base/collections';
import { basenameOf, dirnameOf } from '../../base/paths';
import type { ArtifactDecl, FluxKustomization, SourceDecl } from '../facts/model';
import { Artifact, ArtifactIndex, inRepository, makeArtifact } from './artifact';
import { FluxConfig, sameRepository, SourceIdentity, syntheticKustomization } from './roots';
import { byCloseness } from './variables';

const REPOSITORY_ARTIFACT_KEY = 'repository';

export class Sources {
  private readonly byName = new Map<string, SourceDecl[]>();
  private readonly nearest = new Map<string, SourceDecl>();
  private readonly artifacts = new Map<string, ArtifactIndex>();
  private readonly ownFolders = new Map<FluxKustomization, string | null>();

  constructor(
    sources: readonly SourceDecl[],
    private readonly artifactDecls: readonly ArtifactDecl[],
    private readonly config: FluxConfig,
    private readonly ignoreFiles: ReadonlyMap<string, string>,
  ) {
    for (const source of sources) push(this.byName, `${source.kind}/${source.name}`, source);
  }

  identityOf(k: FluxKustomization): SourceIdentity {
    const name = k.sourceName ?? '';
    const decl = this.declaredSource(k.sourceKind, name, k.file);
    return { kind: k.sourceKind, name, namespace: k.sourceNamespace ?? k.namespace, url: decl?.url ?? null, folder: this.ownFolder(k), ...(decl ? { decl } : {}) };
  }

  /**
   * The folder that is the Kustomization's own Git repository, when its path builds its file only
   * from there (`repos/gitops-system/clusters/mgmt/flux-system/gotk-sync.yaml` with path
   * `./clusters/mgmt`: the folder repos/gitops-system is pushed as a repository of its own), and
   * its GitRepository's URL names a repository called like that folder. (An archived copy of a
   * cluster folder fits the path too, but its source is the repository itself.)
   */
  private ownFolder(k: FluxKustomization): string | null {
    let folder = this.ownFolders.get(k);
    if (folder === undefined) this.ownFolders.set(k, (folder = this.findOwnFolder(k)));
    return folder;
  }

  private findOwnFolder(k: FluxKustomization): string | null {
    if (k.sourceKind !== 'GitRepository' || k.path === null) return null;
    const dir = dirnameOf(k.file);
    if (k.path === '' || dir === k.path || dir.startsWith(k.path + '/')) return null;
    let repositoryName: string | null | undefined; // looked up only where a folder fits the path (most Kustomizations have none)
    for (let root = dirnameOf(dir); root !== ''; root = dirnameOf(root)) {
      const inside = `${root}/${k.path}`;
      if (!(dir === inside || dir.startsWith(inside + '/'))) continue;
      repositoryName ??= repositoryNameOf(this.declaredSource('GitRepository', k.sourceName ?? '', k.file)?.url ?? null);
      if (basenameOf(root) === repositoryName) return root;
    }
    return null;
  }

  /** The source object of that kind and name nearest to `file` (several clusters declare their own flux-system). */
  declaredSource(kind: string, name: string, file: string): SourceDecl | undefined {
    const named = this.byName.get(`${kind}/${name}`);
    if (!named || named.length < 2) return named?.[0];
    // Several clusters declare their own flux-system: the nearest one (by folder), memoized per folder.
    const key = `${kind}/${name}|${dirnameOf(file)}`;
    let found = this.nearest.get(key);
    if (found === undefined) this.nearest.set(key, (found = byCloseness(file, named)[0]));
    return found;
  }

  repositoryArtifact(sourceName: string | null, near = ''): ArtifactIndex {
    return this.artifactOfRepository(sourceName === null ? undefined : this.declaredSource('GitRepository', sourceName, near));
  }

  /** The whole repository as this GitRepository object's artifact (its `spec.ignore`), or with no object. */
  artifactOfRepository(decl: SourceDecl | undefined): ArtifactIndex {
    const key = decl ? `${REPOSITORY_ARTIFACT_KEY}:${decl.file}:${decl.span[0]}` : REPOSITORY_ARTIFACT_KEY;
    return this.artifact(key, () =>
      makeArtifact(key, decl ? `GitRepository ${decl.name}` : 'the repository', '', this.ignoreFiles, decl?.ignore ?? null, decl ? `spec.ignore of GitRepository ${decl.name} (${decl.file})` : ''),
    );
  }

  private folderArtifact(kind: string, name: string, folder: string, decl?: SourceDecl): ArtifactIndex {
    const key = `folder:${kind}/${name}:${folder}:${decl?.file ?? ''}`;
    return this.artifact(key, () => makeArtifact(key, `${kind} ${name} (${folder}/)`, folder, this.ignoreFiles, decl?.ignore ?? null, decl ? `spec.ignore of ${kind} ${name} (${decl.file})` : ''));
  }

  private artifact(key: string, make: () => Artifact): ArtifactIndex {
    let index = this.artifacts.get(key);
    if (!index) this.artifacts.set(key, (index = new ArtifactIndex(make())));
    return index;
  }

  /** The artifact a Kustomization builds from when its own source is taken to be this repository. */
  ownArtifact(k: FluxKustomization): ArtifactIndex | null {
    const mapped = this.mappedSource(k);
    if (mapped) return mapped;
    if (k.sourceKind !== 'GitRepository') return null;
    const folder = this.ownFolder(k);
    return folder === null
      ? this.repositoryArtifact(k.sourceName, k.file)
      : this.folderArtifact(k.sourceKind, k.sourceName ?? '', folder, this.declaredSource(k.sourceKind, k.sourceName ?? '', k.file));
  }

  private mappedSource(k: FluxKustomization): ArtifactIndex | null {
    const mapped = this.config.sources.find(
      (s) => s.kind === k.sourceKind && s.name === k.sourceName && (s.namespace === null || (k.sourceNamespace ?? k.namespace) === null || s.namespace === (k.sourceNamespace ?? k.namespace)),
    );
    return mapped ? this.folderArtifact(mapped.kind, mapped.name, mapped.path) : null;
  }

  /** The artifact `k` builds from in a world, or null when its source is not this repository there. */
  artifactIn(k: FluxKustomization, world: { source: SourceIdentity }): ArtifactIndex | null {
    const mapped = this.mappedSource(k);
    if (mapped) return mapped;
    const { source } = world;
    const sameName = k.sourceKind === source.kind && (k.sourceName ?? source.name) === source.name;
    const namespace = k.sourceNamespace ?? k.namespace;
    if (sameName && (namespace === null || source.namespace === null || namespace === source.namespace)) {
      const decl = source.decl ?? this.declaredSource(source.kind, source.name, k.file);
      if (source.folder !== null) return this.folderArtifact(source.kind, source.name, source.folder, decl);
      return source.kind === 'GitRepository' ? this.artifactOfRepository(decl) : null;
    }
    if (k.sourceKind === 'ExternalArtifact') return this.generatedArtifact(k, world);
    // Another GitRepository object for the same repository (another branch, a ResourceSet's preview).
    if (k.sourceKind === 'GitRepository' && source.url && k.sourceName) {
      const decl = this.declaredSource('GitRepository', k.sourceName, k.file);
      if (decl && sameRepository(decl.url, source.url)) return this.repositoryArtifact(k.sourceName, k.file);
    }
    return null;
  }

  /** An ArtifactGenerator's ExternalArtifact made of folders of this world's source, copied where they were. */
  private generatedArtifact(k: FluxKustomization, world: { source: SourceIdentity }): ArtifactIndex | null {
    const namespace = k.sourceNamespace ?? k.namespace;
    const decl = this.artifactDecls.find((d) => d.name === k.sourceName && (namespace === null || d.namespace === null || d.namespace === namespace));
    if (!decl || decl.copies.length === 0) return null;
    const folders: string[] = [];
    let base: ArtifactIndex | null = null;
    for (const copy of decl.copies) {
      const from = copy.from.replace(/\*\*\/?$/, '').replace(/\/+$/, '');
      const to = copy.to.replace(/\*\*\/?$/, '').replace(/\/+$/, '');
      const probe = syntheticKustomization('', namespace, k.file, k.span, '', copy.kind, copy.sourceName);
      const artifact = from === to && !/[*?[]/.test(from) ? this.artifactIn({ ...probe, sourceNamespace: copy.sourceNamespace }, world) : null;
      if (!artifact || (base && base !== artifact)) return null; // a copy that moves files, or from another source: not followed
      base = artifact;
      folders.push(inRepository(artifact.artifact, from));
    }
    const source = base!.artifact;
    const key = `generated:${decl.file}:${decl.name}`;
    return this.artifact(key, () => ({ ...source, key, label: `ExternalArtifact ${decl.name}`, include: folders }));
  }
}

/** The last segment of a repository URL, without `.git`: `gitops-system` of `REPO_PREFIX/gitops-system.git`. */
function repositoryNameOf(url: string | null): string | null {
  if (!url) return null;
  const match = /([^/:]+?)(?:\.git)?\/?$/.exec(url.trim());
  return match ? match[1] : null;
}
