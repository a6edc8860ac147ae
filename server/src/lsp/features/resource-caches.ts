// Per open document, the resources its outline shows and the Jobs its lenses
// stand on, cached by document content (a keystroke in a file of 2000 Jobs
// parses one document, not 2000). Dropped when the document closes.
import type { TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { ChunkCache, MAY_BE_JOB, ResourceFacts, resourcesIn } from '../../engine/editor/resource-facts';

export class ResourceCaches {
  private readonly caches = new Map<string, { jobs: ChunkCache<ResourceFacts>; resources: ChunkCache<ResourceFacts> }>();

  constructor(documents: TextDocuments<TextDocument>) {
    documents.onDidClose((event) => this.caches.delete(event.document.uri));
  }

  of(uri: string): { jobs: ChunkCache<ResourceFacts>; resources: ChunkCache<ResourceFacts> } {
    let cache = this.caches.get(uri);
    if (!cache) this.caches.set(uri, (cache = { jobs: new ChunkCache(resourcesIn, (text) => MAY_BE_JOB.test(text)), resources: new ChunkCache(resourcesIn) }));
    return cache;
  }
}
