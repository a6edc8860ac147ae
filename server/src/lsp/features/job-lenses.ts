// The lens over every Job: its cycle in words (re-created after its TTL, kept,
// or not applied at all); resolving it gives the long explanation the client
// shows on a click, or, when the title counts the Kustomizations that apply the
// Job, their places, which the client lists as references.
import { CodeLens, Range } from 'vscode-languageserver';
import { jobCycleExplanation, jobLenses } from '../../engine/editor/job-lens';
import { plainLink } from '../../engine/editor/link';
import { MAY_BE_JOB } from '../../engine/editor/resource-facts';
import { isYamlText } from '../../engine/editor/substituted-text';
import { SHOW_JOB_CYCLE, SHOW_REFERENCES, ShowJobCycleArgs, ShowReferencesArgs } from '../../shared/settings';
import type { DocumentContext, Workspace } from '../workspace';
import type { ResourceCaches } from './resource-caches';

interface LensData {
  uri: string;
  offset: number;
}

export function registerJobLenses(workspace: Workspace, caches: ResourceCaches): void {
  const { connection } = workspace;
  const lensesOf = (context: DocumentContext) =>
    isYamlText(context.path) && MAY_BE_JOB.test(context.text) ? jobLenses(context.project.index, context.project.contract, context.path, caches.of(context.document.uri).jobs.of(context.text)) : [];

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) return [];
    return lensesOf(context).map((lens) => {
      const at = context.document.positionAt(lens.span[0]);
      const data: LensData = { uri: params.textDocument.uri, offset: lens.span[0] };
      return { range: Range.create(at, at), data };
    });
  });

  connection.onCodeLensResolve(async (codeLens): Promise<CodeLens> => {
    const data = codeLens.data as LensData;
    const context = await workspace.documentContext(data.uri);
    const lens = context ? lensesOf(context).find((candidate) => candidate.span[0] === data.offset) : undefined;
    if (!context || !lens) return { ...codeLens, command: { title: 'Flux Job Guard: the file changed, the lens will be redrawn', command: '' } };
    if (lens.listed) {
      const listed: ShowReferencesArgs = {
        uri: data.uri,
        position: codeLens.range.start,
        locations: lens.listed.map(({ file, range }) => ({ uri: workspace.uriOf(context.project, file), range })),
      };
      return { ...codeLens, command: { title: lens.title, command: SHOW_REFERENCES, arguments: [listed] } };
    }
    const args: ShowJobCycleArgs = {
      uri: data.uri,
      position: lens.ttlKeySpan ? context.document.positionAt(lens.ttlKeySpan[0]) : null,
      // `file:line`: the client shows it in a message when there is no TTL hover to show.
      markdown: jobCycleExplanation(
        context.project.index,
        context.project.contract,
        context.path,
        context.text,
        lens,
        plainLink(() => undefined),
      ),
    };
    return { ...codeLens, command: { title: lens.title, command: SHOW_JOB_CYCLE, arguments: [args] } };
  });
}
