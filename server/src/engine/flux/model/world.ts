// The vocabulary of the apply stage: a world (what one root applies), a
// Builder (a live Kustomization in a world, with its effective postBuild and
// variables), and a BuildEntry (one way a file takes part in a build).
import type { FluxKustomization, PostBuild } from '../facts/model';
import type { BuiltFile } from './build';
import type { RootCandidate, SourceIdentity } from './roots';
import type { VarSet } from './variables';

export interface World {
  index: number;
  /** How people name it: the root's path (a cluster folder, usually). */
  label: string;
  how: RootCandidate['how'];
  root: FluxKustomization;
  source: SourceIdentity;
  /** How many worlds the repository has (messages name the world only when there are several). */
  count: number;
  /** The Flux version its FluxInstance pins (flux-version.ts), null where none does. */
  flux: PinnedFlux | null;
}

/** A FluxInstance's `distribution.version` as written, and the file it is written in (messages cite it). */
export interface PinnedFlux {
  version: string;
  file: string;
}

export interface Builder {
  kustomization: FluxKustomization;
  /** The effective postBuild (own, plus what parents patch in), null without one. */
  postBuild: PostBuild | null;
  /** null: nothing substitutes what this Kustomization builds (no postBuild, no webhook). */
  vars: VarSet | null;
  world: World;
}

export interface BuildEntry extends BuiltFile {
  builder: Builder;
}
