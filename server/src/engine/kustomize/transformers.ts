// A kustomization's built-in transformers, in the order kustomize v5.5 runs
// them over everything the kustomization (with its components) has
// accumulated: patchesStrategicMerge, patches, namespace, namePrefix and
// nameSuffix, labels and commonLabels, commonAnnotations, patchesJson6902.
// (images and replicas come after, and touch no metadata; replacements come
// last.) Each step is a function of one
// resource, so the same steps serve a whole build and a single document;
// `checks` holds what needs the whole set (a patch's unique target, an id
// the namespace makes twice).
import type { Kustomization } from './kustomization';
import { applyJson6902, applyStrategicMerge, Patch, StrategicMergeDoc } from './patches';
import { anyIds, currentId, idKey, idText, isClusterScoped, Res, ResId, sameId, storePreviousId } from './resource';
import { fail } from './types';

/** One transformation of one resource; 'deleted' when a `$patch: delete` removes it. */
export type Step = (res: Res) => 'kept' | 'deleted';

export interface TransformerStage {
  /** A name for messages: the kustomization file and what runs. */
  what: string;
  step: Step;
  /** The resources it applies to, given the whole set (all, a target's selection, a patch's unique id match); throws a BuildError where kustomize fails. */
  select(all: Res[]): Res[];
  /** After the stage ran over the whole set: kustomize's check of it, if any. */
  after?(all: Res[]): void;
  /** Whether the stage applies to a resource on its own (single-document answers). */
  appliesTo(res: Res): boolean;
  /** It reads other resources (a replacement's source): a single document cannot be answered alone. */
  wholeSet?: boolean;
  /** What it may write beyond the metadata the model follows, as text (a patch's, a replacement's target field paths): kept on each resource it changes. */
  writes?: string;
}

const PREFIX_SKIPPED = (id: ResId) => id.kind === 'CustomResourceDefinition' || id.kind === 'Namespace' || (id.kind === 'APIService' && id.apiVersion.startsWith('apiregistration.k8s.io/'));

/** The transformer stages of a kustomization, given its loaded patches and replacements. */
export function transformerStages(k: Kustomization, patches: { strategicMerge: Patch[]; patches: Patch[]; json6902: Patch[] }, replacements: TransformerStage[]): TransformerStage[] {
  const stages: TransformerStage[] = [];
  for (const patch of [...patches.strategicMerge, ...patches.patches]) stages.push(patchStage(patch));
  if (k.namespace !== '') stages.push(namespaceStage(k));
  if (k.namePrefix !== '' || k.nameSuffix !== '') {
    stages.push(
      everyResource(`${k.file}: namePrefix/nameSuffix`, (res) => {
        if (PREFIX_SKIPPED(res.previous[0] ?? currentId(res))) return 'kept';
        storePreviousId(res);
        res.name = k.namePrefix + res.name + k.nameSuffix;
        return 'kept';
      }),
    );
  }
  for (const pairs of [...k.labels, k.commonLabels]) {
    if (pairs.size === 0) continue;
    stages.push(
      everyResource(`${k.file}: labels`, (res) => {
        res.labels = new Map([...(res.labels ?? []), ...pairs]);
        return 'kept';
      }),
    );
  }
  if (k.commonAnnotations.size > 0) {
    stages.push(
      everyResource(`${k.file}: commonAnnotations`, (res) => {
        res.annotations = new Map([...res.annotations, ...k.commonAnnotations]);
        return 'kept';
      }),
    );
  }
  for (const patch of patches.json6902) stages.push(patchStage(patch));
  return [...stages, ...replacements];
}

function everyResource(what: string, step: Step): TransformerStage {
  return { what, step, select: (all) => all, appliesTo: () => true };
}

function namespaceStage(k: Kustomization): TransformerStage {
  const namespace = k.namespace;
  return {
    what: `${k.file}: namespace`,
    select: (all) => all,
    appliesTo: () => true,
    step: (res) => {
      storePreviousId(res);
      if (!isClusterScoped(res)) res.namespace = namespace;
      // the default field specs set a Namespace object's own name too
      if (res.kind === 'Namespace') res.name = namespace;
      return 'kept';
    },
    after: (all) => {
      const seen = new Set<string>();
      for (const res of all) {
        const id = currentId(res);
        const key = idKey(id);
        if (seen.has(key)) fail('duplicate-id', `namespace transformation produces ID conflict: two resources become ${idText(id)}`, k.file, null);
        seen.add(key);
      }
    },
  };
}

/** GetById: the one resource that answers to a strategic-merge patch's own id. */
function uniqueTarget(all: Res[], patch: Patch, doc: StrategicMergeDoc): Res {
  const matches = all.filter((res) => anyIds(res).some((id) => sameId(id, doc.id)));
  if (matches.length !== 1) {
    const what = `${matches.length === 0 ? 'no matches' : 'multiple matches'} for Id ${idText(doc.id)}; failed to find unique target for patch ${idText(doc.id)}`;
    fail('patch-target-missing', what, patch.file, patch.entry.span);
  }
  return matches[0];
}

function patchStage(patch: Patch): TransformerStage {
  const what = `${patch.file}: ${patch.entry.field}`;
  const writes = patch.text;
  if (patch.type === 'json6902') {
    return {
      what,
      writes,
      select: (all) => all.filter((res) => patch.target!.matches(res)),
      appliesTo: (res) => patch.target!.matches(res),
      step: (res) => {
        storePreviousId(res);
        applyJson6902(res, patch);
        return 'kept';
      },
    };
  }
  const doc = patch.doc;
  if (patch.target) {
    const target = patch.target;
    return { what, writes, select: (all) => all.filter((res) => target.matches(res)), appliesTo: (res) => target.matches(res), step: (res) => applyStrategicMerge(res, patch, doc) };
  }
  return {
    what,
    writes,
    select: (all) => [uniqueTarget(all, patch, doc)],
    appliesTo: (res) => anyIds(res).some((id) => sameId(id, doc.id)),
    step: (res) => applyStrategicMerge(res, patch, doc),
  };
}

/** Runs stages over a whole set, in place; throws a BuildError where kustomize fails. */
export function runStages(stages: TransformerStage[], all: Res[]): Res[] {
  let current = all;
  for (const stage of stages) {
    const selected = new Set(stage.select(current));
    current = current.filter((res) => !selected.has(res) || stage.step(res) === 'kept');
    if (stage.writes !== undefined) for (const res of selected) res.writtenBy = [...(res.writtenBy ?? []), stage.writes];
    stage.after?.(current);
  }
  return current;
}
