// The --cache folder's kept model (pipeline/kept-model.ts): the model the last changed-only run
// that built one left, for a later run whose revision is the state it was built from. One file:
// the length of its header (4 bytes), the header, then the core's bytes, the outside sources', and
// the builders' and the files' in chunks, in a row. Only the header is read at once; the core is
// read where the state matches, and a chunk of builders or files only where the audit asks for one
// of them (a few, for a small change).
import { closeSync, openSync, readSync, writevSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import type { KeptBuilder, KeptCore, KeptFile, KeptModelData, KeptModelSource } from '../engine/pipeline/kept-model';
import type { OutsideSource } from '../engine/flux/model/outside-sources';

export const MODEL_FILE = 'model-1.bin';

interface Header {
  engine: string;
  setting: string;
  states: string[];
  /** Where the core's bytes end, counted from the first part's start, and the outside sources' (next). */
  core: number;
  outside: number;
  /** How many builders, and where each chunk of CHUNK of them ends (by id). */
  builderCount: number;
  builders: Float64Array;
  /** The files' paths, each ended by a NUL (one string: quick to read back), and where each chunk of CHUNK files ends. */
  paths: string;
  files: Float64Array;
}

/**
 * Builders and files are written CHUNK to a part: one serializer call per part is most of the cost
 * of writing 20,000 small ones, and reading a part holds a few kB.
 */
const CHUNK = 64;

/** The model kept in `file` by this engine with this setting; undefined where there is none, or it cannot be read. */
export function readModelFile(file: string, engine: string, setting: string): KeptModelSource | undefined {
  let fd: number;
  let header: Header;
  let start: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const length = readAt(fd, 0, 4).readUInt32LE(0);
    header = deserialize(readAt(fd, 4, length)) as Header;
    start = 4 + length;
  } catch {
    closeSync(fd);
    return undefined;
  }
  if (header.engine !== engine || header.setting !== setting || !Array.isArray(header.states) || typeof header.paths !== 'string') {
    closeSync(fd);
    return undefined;
  }
  // The file stays open while the run may ask for parts (a later run may replace it meanwhile, never change it).
  const part = <T>(from: number | undefined, to: number | undefined): T | undefined => {
    if (from === undefined || to === undefined || to < from) return undefined;
    try {
      return deserialize(readAt(fd, start + from, to - from)) as T;
    } catch {
      return undefined; // damaged or cut short: the run builds the model
    }
  };
  const chunked = <T>(ends: Float64Array, first: number) => {
    const read = new Map<number, T[] | undefined>();
    return (id: number): T | undefined => {
      const chunk = Math.floor(id / CHUNK);
      if (!read.has(chunk)) read.set(chunk, part<T[]>(chunk === 0 ? first : ends[chunk - 1], ends[chunk]));
      return read.get(chunk)?.[id % CHUNK];
    };
  };
  const builderOf = chunked<KeptBuilder>(header.builders, header.outside);
  const fileOf = chunked<KeptFile>(header.files, header.builders.at(-1) ?? header.outside);
  const paths = header.paths.split('\0');
  const fileIds = new Map<string, number>();
  for (let id = 0; id < paths.length - 1; id++) fileIds.set(paths[id], id);
  let core: KeptCore | undefined;
  return {
    states: header.states,
    core: () => (core ??= part<KeptCore>(0, header.core)),
    outside: () => part<OutsideSource[]>(header.core, header.outside),
    builder: (id) => (Number.isInteger(id) && id >= 0 && id < header.builderCount ? builderOf(id) : undefined),
    file: (path) => {
      const id = fileIds.get(path);
      return id === undefined ? undefined : fileOf(id);
    },
  };
}

/** `length` bytes of the file from `position`; an error where the file holds fewer. */
function readAt(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, position + done);
    if (read === 0) throw new Error('the kept model is cut short');
    done += read;
  }
  return bytes;
}

/** Writes `model` to `file` (the caller replaces the cache's file with it). */
export function writeModelFile(file: string, engine: string, model: KeptModelData): void {
  const parts: Uint8Array[] = [serialize(model.core), serialize(model.outside)];
  const core = parts[0].length;
  let end = core + parts[1].length;
  const outside = end;
  const inChunks = (items: readonly unknown[]): Float64Array => {
    const ends = new Float64Array(Math.ceil(items.length / CHUNK));
    for (let chunk = 0; chunk < ends.length; chunk++) {
      const bytes = serialize(items.slice(chunk * CHUNK, (chunk + 1) * CHUNK));
      parts.push(bytes);
      ends[chunk] = end += bytes.length;
    }
    return ends;
  };
  const builders = inChunks(model.builders);
  const files = inChunks([...model.files.values()]);
  const paths = [...model.files.keys()].map((path) => `${path}\0`).join('');
  const header = serialize({ engine, setting: model.setting, states: [...model.core.states.keys()], core, outside, builderCount: model.builders.length, builders, paths, files } satisfies Header);
  writeFramed(file, header, parts);
}

/**
 * Writes a cache file as both of the cache's files are laid out: the length of the header (4
 * bytes), the header, then the parts in a row, each as it is (joining them first would copy the
 * whole file once more).
 */
export function writeFramed(file: string, header: Uint8Array, parts: readonly Uint8Array[]): void {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const pieces = [length, header, ...parts];
  const fd = openSync(file, 'w');
  try {
    const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
    const written = writevSync(fd, pieces);
    if (written !== total) throw new Error(`wrote ${written} of ${total} bytes`);
  } finally {
    closeSync(fd);
  }
}
