// Which files each part of the engine looks at. The audit, the editor and the
// CLI all ask here, so an open file shows exactly what the audit reports.
import { contractDir } from '../contract/model';
import type { Contract } from '../contract/model';
import { isKustomizationFile } from '../flux/facts/model';
import { matchesAny } from '../base/glob';
import { basenameOf, isYamlPath } from '../base/paths';
import type { RepoIndex } from './repo-index';
import type { SyntaxScope } from '../rules/yaml-syntax';

const ALWAYS_EXCLUDED = /(^|\/)(node_modules|\.git)(\/|$)/;

/**
 * A hidden file or folder (`.archive/`, `.github/`): as with minimatch's default, `*` and `**` do
 * not reach into them; an include glob that names one (`.archive/**`) does.
 */
const HIDDEN = /(^|\/)\.(?!\.?\/)/;

/** Whether the audit looks at a YAML file: under `include`, not under `exclude`. */
export function isAudited(contract: Contract, path: string): boolean {
  if (!isYamlPath(path) || ALWAYS_EXCLUDED.test(path) || path === contract.path) return false;
  return inScope(contract, path);
}

/** Under the contract's folder, not hidden (unless an include glob names the folder), matching `include` and not `exclude`. */
function inScope(contract: Contract, path: string, include = contract.include): boolean {
  const relative = relativeToContract(contract, path);
  if (relative === null || (HIDDEN.test(relative) && !include.some((glob) => HIDDEN.test(glob)))) return false;
  return matchesAny(relative, include) && !matchesAny(relative, contract.exclude);
}

/** Globs are relative to the contract file's folder. */
function relativeToContract(contract: Contract, path: string): string | null {
  const dir = contractDir(contract.path);
  if (dir === '') return path;
  return path.startsWith(dir + '/') ? path.slice(dir.length + 1) : null;
}

/** Whether a file can contribute to the repository index (YAML, kustomization files, `.sourceignore`). */
export function mayBeIndexed(path: string): boolean {
  return (isYamlPath(path) || isKustomizationFile(path) || basenameOf(path) === '.sourceignore') && !ALWAYS_EXCLUDED.test(path);
}

/**
 * Whether the engine analyses a file: an audited YAML file, or a file a live
 * generator reads (a script, an env file, a config file: any name), unless
 * `exclude` names it.
 */
export function isAnalyzed(contract: Contract, index: RepoIndex, path: string): boolean {
  if (isAudited(contract, path)) return true;
  if (ALWAYS_EXCLUDED.test(path) || path === contract.path) return false;
  return (
    index
      .fluxGraph()
      .entriesOf(path)
      .some((entry) => entry.role === 'generator') && inScope(contract, path, ['**'])
  );
}

/**
 * Whether the Job and pod rules apply to a file's documents. Where the model
 * knows where Flux starts, they cover what Flux applies (a template nothing
 * applies is not a Job that runs); a `jobs.include` the contract writes
 * decides instead; without a root, every resource under `include` that
 * kustomize would apply: a file beside a kustomization file that no
 * kustomization lists is applied by nothing (kustomize, Argo CD), unless a
 * fallback root's Kustomization builds it.
 */
export function resourceRulesApply(contract: Contract, index: RepoIndex, path: string): boolean {
  if (index.roleOf(path) !== 'resource' || !isAudited(contract, path)) return false;
  if (contract.includeSpan !== null) return true;
  const graph = index.fluxGraph();
  if (graph.worlds.length > 0 && !graph.fallback) return graph.isApplied(path);
  return graph.isApplied(path) || index.unlistedBy(path) === null;
}

/**
 * Whether the kubelet's rule sees a file's documents where Flux does not substitute them: what the
 * resource rules see, and patch files too (their text ends up in a container). Text that Flux
 * substitutes is checked by the substitution rules, which count the kubelet themselves.
 */
export function kubeletRulesApply(contract: Contract, index: RepoIndex, path: string): boolean {
  const role = index.roleOf(path);
  if (role === 'resource') return resourceRulesApply(contract, index, path);
  if (role !== 'patch' || !isAudited(contract, path)) return false;
  if (contract.includeSpan !== null) return true;
  const graph = index.fluxGraph();
  return graph.worlds.length === 0 || graph.fallback || graph.buildersOf(path).length > 0;
}

/**
 * Where a YAML error matters (docs/rules.md#yaml-syntax). An error where Flux reads the file: a
 * live Kustomization builds it (a resource, a kustomize patch, a kustomization file); where the
 * contract's own written `jobs.include` names it, or it is the contract file; and everywhere when
 * the repository has no Kustomization at all (nothing tells what Flux applies). A warning naming
 * the consumer where only a generator reads it: Flux copies its bytes into a ConfigMap as they are,
 * and the program that reads them there parses them. Nothing on a file nothing applies (a Go, Helm
 * or Jinja template, an Ansible file, documentation): no Flux path reads it. With a fallback root
 * (none chosen), every Kustomization nothing else builds counts as one, so what none of them
 * builds no world applies.
 */
export function syntaxScope(contract: Contract, index: RepoIndex, path: string): SyntaxScope {
  if (path === contract.path || contract.includeSpan !== null) return ERROR;
  const graph = index.fluxGraph();
  // No Kustomization tells what Flux applies: every file, but what a Helm chart folder holds that Helm never parses.
  if (graph.worlds.length === 0) return index.isChartFileHelmSkips(path) ? null : ERROR;
  const entries = graph.entriesOf(path);
  const failed = graph.failedByYamlOf(path);
  if (failed.length > 0) return { severity: 'error', fails: failed };
  if (entries.some((entry) => entry.role !== 'generator') || graph.readByFailingBuild(path)) return ERROR;
  const read = entries.find((entry) => entry.generator)?.generator;
  if (!read) return null;
  const kind = read.generator.kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator';
  return { severity: 'warning', consumer: `${kind} "${read.generator.name}" of ${read.config.file} (into ${read.generator.kind} "${read.generator.name}")` };
}

const ERROR: SyntaxScope = { severity: 'error' };
