/**
 * pod-tmp-handoff (warning): in one pod (a Job, CronJob, Deployment, StatefulSet, DaemonSet,
 * Pod ...), a path under `/tmp` appears in the command, args or env of two or more containers
 * (init or regular), and `/tmp` (or the path's folder) is not one volume mounted in each.
 *
 * Why it matters: every container has its own `/tmp`: what an init container writes there, the
 * next container does not find, and the Job fails (or worse, goes on without it).
 *
 * Example:
 *   initContainers:
 *     - command: ["sh", "-c", "fetch > /tmp/dump.sql"]
 *   containers:
 *     - command: ["psql", "-f", "/tmp/dump.sql"]   # ← another /tmp
 *
 * Fix (one edit): the paths move to `/work`, an `emptyDir` volume `work` mounted at `/work` in
 * each of those containers.
 */
import { forEachStringScalar, offsetMap } from '../flux/substitution/scalars';
import { Container, podTemplate } from '../k8s/pods';
import { asMap, asSeq, getNode, getString, isSeq, ParsedDocument, YAMLMap } from '../yaml/documents';
import { appendListEntry, OffsetEdit } from '../yaml/edit';
import type { Rule } from './rule';

const TMP_PATH = /(?<![\w./-])\/tmp\/[^\s"'`;|&()<>]+/g;
export const SHARED_VOLUME = { name: 'work', mountPath: '/work' };

interface PathUse {
  container: Container;
  path: string;
  span: [number, number];
}

/** `/tmp/...` paths in a container's command, args and env values. */
function tmpPaths(parsed: ParsedDocument, container: Container): PathUse[] {
  const uses: PathUse[] = [];
  const { doc } = parsed;
  const places = [
    getNode(doc, container.map, 'command'),
    getNode(doc, container.map, 'args'),
    ...(asSeq(doc, getNode(doc, container.map, 'env'))?.items ?? []).map((item) => getNode(doc, item, 'value')),
  ];
  for (const place of places) {
    if (!place) continue;
    const scope = { ...parsed, doc: { ...doc, contents: place } } as ParsedDocument;
    forEachStringScalar(scope, (value, start, end) => {
      if (!value.includes('/tmp/')) return;
      const map = offsetMap(parsed.source, start, end, value);
      for (const match of value.matchAll(TMP_PATH)) {
        const path = match[0].replace(/[.,:]+$/, '');
        uses.push({ container, path, span: [map(match.index), map(match.index + path.length - 1) + 1] });
      }
    });
  }
  return uses;
}

/** The volume a container mounts over `path`'s folder, if any. */
function volumeOver(parsed: ParsedDocument, container: Container, path: string): string | null {
  for (const mount of asSeq(parsed.doc, getNode(parsed.doc, container.map, 'volumeMounts'))?.items ?? []) {
    const mountPath = (getString(parsed.doc, mount, 'mountPath') ?? '').replace(/\/+$/, '');
    if (mountPath !== '' && path.startsWith(mountPath + '/')) return getString(parsed.doc, mount, 'name');
  }
  return null;
}

export const podTmpHandoff: Rule = {
  meta: { id: 'pod-tmp-handoff', defaultSeverity: 'warning', summary: 'Containers of one pod hand a file over /tmp, which each container has its own of.' },
  check: {
    document(parsed, context) {
      if (!parsed.source.slice(parsed.base, parsed.end).includes('/tmp/')) return [];
      const pod = podTemplate(parsed);
      if (!pod || pod.containers.length < 2) return [];
      const uses = pod.containers.flatMap((container) => tmpPaths(parsed, container));
      const byPath = new Map<string, PathUse[]>();
      for (const use of uses) byPath.set(use.path, [...(byPath.get(use.path) ?? []), use]);
      const findings = [];
      for (const [path, pathUses] of byPath) {
        const containers = [...new Set(pathUses.map((use) => use.container))];
        if (containers.length < 2) continue;
        const volumes = containers.map((container) => volumeOver(parsed, container, path));
        if (volumes.every((volume) => volume !== null && volume === volumes[0])) continue;
        const at = pathUses.find((use) => use.container === containers[1])!;
        const names = containers.map((container) => `"${container.name}"`);
        const listed = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
        const message = `Containers ${listed} all use ${path}, but each container has its own /tmp: the file one writes is not there for the others. Hand it over a shared volume (an emptyDir mounted in each container, e.g. at ${SHARED_VOLUME.mountPath}).`;
        const edits = handoffEdits(
          parsed,
          context.text,
          pod.spec,
          containers,
          uses.filter((use) => containers.includes(use.container)),
        );
        const fixes = edits ? [context.fix(`Move the /tmp hand-off to a shared emptyDir volume at ${SHARED_VOLUME.mountPath}`, edits, true)] : [];
        findings.push(context.finding(podTmpHandoff.meta, at.span, message, fixes, pod.kind === 'Job' ? pod.name : null));
      }
      return findings;
    },
  },
};

/** Rewrites `/tmp/...` to `/work/...` in the containers, mounts the volume in each and declares it once. */
function handoffEdits(parsed: ParsedDocument, text: string, spec: YAMLMap, containers: Container[], uses: PathUse[]): OffsetEdit[] | null {
  const edits: OffsetEdit[] = uses.map((use) => ({ start: use.span[0], end: use.span[0] + '/tmp'.length, newText: SHARED_VOLUME.mountPath }));
  for (const container of containers) {
    const mounts = asSeq(parsed.doc, getNode(parsed.doc, container.map, 'volumeMounts'));
    if (mounts?.items.some((mount) => getString(parsed.doc, mount, 'mountPath') === SHARED_VOLUME.mountPath)) continue;
    const edit = appendListEntry(text, container.map, parsed.base, ['volumeMounts'], [`name: ${SHARED_VOLUME.name}`, `mountPath: ${SHARED_VOLUME.mountPath}`]);
    if (!edit) return null;
    edits.push(edit);
  }
  const volumes = getNode(parsed.doc, spec, 'volumes');
  const declared = isSeq(volumes) && volumes.items.some((volume) => getString(parsed.doc, asMap(parsed.doc, volume), 'name') === SHARED_VOLUME.name);
  if (!declared) {
    const edit = appendListEntry(text, spec, parsed.base, ['volumes'], [`name: ${SHARED_VOLUME.name}`, 'emptyDir: {}']);
    if (!edit) return null;
    edits.push(edit);
  }
  return mergeInsertions(edits);
}

/** Edits that insert at the same offset become one, in order, so no editor reorders them. */
function mergeInsertions(edits: OffsetEdit[]): OffsetEdit[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const merged: OffsetEdit[] = [];
  for (const edit of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.start === last.end && edit.start === edit.end && last.start === edit.start) last.newText += edit.newText;
    else merged.push({ ...edit });
  }
  return merged;
}
