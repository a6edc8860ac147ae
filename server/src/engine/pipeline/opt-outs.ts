// kustomize's verdict on what each build entry of a file outputs, asked where
// a file is analysed (never for the whole repository at once): per document
// of a resource file, per generator item of a kustomization file, for the
// generator that reads an input. The answer travels with the entry (as data,
// to audit workers too), and the substitution regions read it
// (flux/substitution/regions.ts).
import type { FluxGraph } from '../flux/model/graph';
import type { BuiltFile } from '../flux/model/build';
import type { BuildEntry } from '../flux/model/world';
import type { KustomizeConfig } from '../flux/facts/model';
import type { ResourceDoc } from '../kustomize/resource-docs';

/** The entries of `file`, each with kustomize's verdicts where the model gives them. */
export function entriesWithOptOuts(graph: FluxGraph, file: string, docs: readonly ResourceDoc[] | undefined, config: KustomizeConfig | undefined): BuildEntry[] {
  const view = graph.kustomize;
  const entries = graph.entriesOf(file);
  if (!view || entries.length === 0) return [...entries];
  return entries.map((entry) => {
    const artifact = graph.artifactOf(entry.builder);
    if (!artifact) return entry;
    const k = entry.builder.kustomization;
    const optOut: NonNullable<BuiltFile['optOut']> = [];
    if (entry.role === 'resource' && docs) {
      view.documentVerdicts(k, artifact, file, docs)?.forEach((verdict, i) => {
        if (verdict) optOut.push({ span: docs[i].span, verdict });
      });
    } else if (entry.role === 'inline' && config) {
      for (const generator of config.generators) {
        const verdict = view.generatorVerdict(k, artifact, config.file, generator.span[0]);
        if (verdict) optOut.push({ span: generator.span, verdict });
      }
    } else if (entry.role === 'generator' && entry.generator) {
      const { config: generatorConfig, generator } = entry.generator;
      const verdict = view.generatorVerdict(k, artifact, generatorConfig.file, generator.span[0]);
      if (verdict) optOut.push({ span: generator.span, verdict });
    }
    return optOut.length > 0 ? { ...entry, optOut } : entry;
  });
}
