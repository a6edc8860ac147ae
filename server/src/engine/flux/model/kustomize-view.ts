// kustomize's own answer for what a Flux Kustomization builds (the model in
// ../../kustomize): whether the build fails, and with which substitution
// opt-out each document and generated ConfigMap comes out. One builder per
// source artifact (the files Flux's artifact holds), and over it one layered
// builder per Flux Kustomization that adds to its folder (kustomize-layer.ts);
// every folder's build is shared by all that reach it. Reads only what the
// repository index keeps: the kustomization, patch and generator env files'
// texts, and each resource document's header.
import { KustomizeBuilder, type BuildOutcome, type BuiltResource, type Unmodelled } from '../../kustomize/build';
import { optOutOf, type OptOutAnswer } from '../../kustomize/document-query';
import { kustomizationFilesIn, type KustomizeFiles } from '../../kustomize/files';
import type { ResourceDoc } from '../../kustomize/resource-docs';
import { BuildError } from '../../kustomize/types';
import { dirnameOf } from '../../base/paths';
import type { FluxKustomization } from '../facts/model';
import { inRepository, type ArtifactIndex } from './artifact';
import { artifactHasDir, resolveSpecPath, type FluxBuildFailure, type RepoLayout } from './build';
import { fluxLayer, type FluxLayer } from './kustomize-layer';

/** What the view reads of the repository besides its layout (the index keeps it). */
export interface KustomizeInput {
  /** The text of a kustomization file, a patch or replacements file, a generator's env file. */
  text(path: string): string | undefined;
  /** The documents' headers of a YAML file. */
  docs(path: string): ResourceDoc[] | undefined;
}

/** What Flux hands to kustomize for one Kustomization: a builder and the folder it builds. */
interface Target {
  builder: KustomizeBuilder;
  dir: string;
  layer: FluxLayer;
}

/** The verdict on one document or generator item in one build. */
export type OptOutVerdict = 'substituted' | 'disabled' | 'absent';

export class KustomizeView {
  private readonly bases = new Map<string, KustomizeBuilder>();
  private readonly targets = new Map<string, Target | null>();
  private readonly outcomes = new Map<string, BuildOutcome>();

  constructor(
    private readonly layout: RepoLayout,
    private readonly input: KustomizeInput,
  ) {}

  /** The build's failure, where kustomize fails (null: it builds, or the model cannot tell). */
  failure(k: FluxKustomization, artifact: ArtifactIndex): FluxBuildFailure | null {
    const outcome = this.outcome(k, artifact);
    if (!outcome || outcome.status !== 'failed') return null;
    const { failure } = outcome;
    const target = this.target(k, artifact)!;
    const place = target.layer.locate(failure.file, failure.span) ?? null;
    const found: FluxBuildFailure = { reason: failure.reason, message: failure.message, dir: target.dir, ...(place ?? { file: failure.file, span: failure.span ?? [0, 0] }) };
    const excludedBy = failure.missing ? this.exclusionOf(artifact, failure.missing) : null;
    return excludedBy ? { ...found, excludedBy } : found;
  }

  /** The ignore pattern that leaves a path of the repository out of the artifact (null: it is not in the repository, or not left out). */
  private exclusionOf(artifact: ArtifactIndex, path: string): string | null {
    const { layout } = this;
    const pattern = layout.hasFile(path) ? artifact.exclusion(path) : layout.hasDir(path) ? artifact.exclusion(`${path}/x`) : null;
    return pattern && pattern !== 'outside' ? pattern.origin : null;
  }

  /** Whether the model answers for the build at all (no remote resource, no Helm chart, a folder spec.path names). */
  answers(k: FluxKustomization, artifact: ArtifactIndex): boolean {
    const outcome = this.outcome(k, artifact);
    return outcome !== null && outcome.status !== 'unsupported';
  }

  /** The text of a file the kustomize model reads whole (a kustomization, patch, replacements or configurations file). */
  text(path: string): string | undefined {
    return this.input.text(path);
  }

  /** The document headers of a YAML file, as the index read them. */
  docs(path: string): readonly ResourceDoc[] {
    return this.input.docs(path) ?? [];
  }

  /** What the build outputs, with the fields met on the way that the model leaves out; null where kustomize fails or the model cannot tell. */
  output(k: FluxKustomization, artifact: ArtifactIndex): { resources: readonly BuiltResource[]; unmodelled: readonly Unmodelled[] } | null {
    const outcome = this.outcome(k, artifact);
    return outcome?.status === 'ok' ? outcome : null;
  }

  /** Per document of a resource file (by its header), how the build outputs it. */
  documentVerdicts(k: FluxKustomization, artifact: ArtifactIndex, file: string, docs: readonly ResourceDoc[]): Array<OptOutVerdict | null> | null {
    const target = this.target(k, artifact);
    if (!target) return null;
    // The builder may hold the file's headers from before an edit that moved them: ask by position in the file.
    const known = target.builder.resourceDocs(file);
    const aligned = known.length === docs.length && known.every((doc, i) => doc.kind === docs[i].kind && doc.name === docs[i].name) ? known : docs;
    return aligned.map((doc) => verdict(optOutOf(target.builder, target.dir, { kind: 'document', file, doc })));
  }

  /** How the build outputs the ConfigMap of the generator item that starts at `start` in the kustomization file `file`. */
  generatorVerdict(k: FluxKustomization, artifact: ArtifactIndex, file: string, start: number): OptOutVerdict | null {
    const target = this.target(k, artifact);
    if (!target) return null;
    let spec;
    try {
      spec = target.builder.kustomization(dirnameOf(file), { file, span: null }).generators.find((candidate) => candidate.span[0] === start);
    } catch (error) {
      if (error instanceof BuildError) return null;
      throw error;
    }
    return spec ? verdict(optOutOf(target.builder, target.dir, { kind: 'generator', file, span: spec.span })) : null;
  }

  private outcome(k: FluxKustomization, artifact: ArtifactIndex): BuildOutcome | null {
    const target = this.target(k, artifact);
    if (!target) return null;
    const key = this.targetKey(k, artifact);
    let outcome = this.outcomes.get(key);
    if (!outcome) this.outcomes.set(key, (outcome = target.builder.build(target.dir)));
    return outcome;
  }

  private targetKey(k: FluxKustomization, artifact: ArtifactIndex): string {
    return `${artifact.artifact.key}|${k.file}|${k.span[0]}|${k.name}|${k.pathAsWritten}`;
  }

  /** The builder and folder for `k`; null where spec.path names no folder the model can build (a variable, a template, a missing folder). */
  private target(k: FluxKustomization, artifact: ArtifactIndex): Target | null {
    const key = this.targetKey(k, artifact);
    let target = this.targets.get(key);
    if (target === undefined) {
      target = null;
      const path = resolveSpecPath(k.pathAsWritten);
      const templated = k.template !== undefined && /<</.test(k.pathAsWritten);
      if (!path.variable && !templated && path.path !== null) {
        const dir = inRepository(artifact.artifact, path.path);
        if (artifactHasDir(this.layout, artifact, dir)) {
          const base = this.base(artifact);
          const hasOwn = kustomizationFilesIn(base.files, dir).length > 0;
          // Flux always rewrites the folder's kustomization (or writes one): every build is layered.
          const layer = fluxLayer(k, dir, hasOwn, this.listing(base.files));
          target = { builder: base.layered(layer), dir, layer };
        }
      }
      this.targets.set(key, target);
    }
    return target;
  }

  private base(artifact: ArtifactIndex): KustomizeBuilder {
    let builder = this.bases.get(artifact.artifact.key);
    if (!builder) this.bases.set(artifact.artifact.key, (builder = new KustomizeBuilder(this.files(artifact))));
    return builder;
  }

  /** The repository as the artifact holds it. */
  private files(artifact: ArtifactIndex): KustomizeFiles {
    const { layout, input } = this;
    const isFile = (path: string) => layout.hasFile(path) && artifact.holds(path);
    return {
      isFile,
      isDir: (path) => artifactHasDir(layout, artifact, path),
      read: (path) => (isFile(path) ? input.text(path) : undefined),
      resourceDocs: (path) => input.docs(path),
    };
  }

  private listing(files: KustomizeFiles) {
    return {
      filesIn: (dir: string) => this.layout.filesIn(dir),
      subdirs: (dir: string) => this.layout.subdirs(dir),
      isFile: (path: string) => files.isFile(path),
      isDir: (path: string) => files.isDir(path),
    };
  }
}

/** Substituted unless every way the build outputs it opts out; absent where it outputs it no way; null where the model cannot tell. */
function verdict(answer: OptOutAnswer): OptOutVerdict | null {
  if (answer.status !== 'built') return null;
  if (answer.results.length === 0) return 'absent';
  return answer.results.every((result) => result.disabled) ? 'disabled' : 'substituted';
}
