// Locate and the repository map over a workspace's code index: the index's outlines
// (definitions, references, imports) of every parsed file, their text read from the workspace,
// and the git history read by its adapter, handed to the pure ranking in src/core/code.
import fs from 'node:fs/promises';
import path from 'node:path';
import { readGitHistory, type GitHistoryOptions } from '../adapters/code/git-history.ts';
import type { ChangeHistory } from '../core/code/history.ts';
import { ImportResolver } from '../core/code/imports.ts';
import { locate, type LocatedFile } from '../core/code/locate.ts';
import type { FileOutline, FileState, IndexedLanguage } from '../core/code/model.ts';
import { repositoryMap, type MapFile, type RepoMap } from '../core/code/repo-map.ts';

/** What locate and the map read of a code index (CodeIntel, src/core/code/service.ts, has it). */
export interface OutlineSource {
  /** The workspace's real path. */
  readonly root: string;
  /** Every file, with an empty query (at most `limit`). */
  findFiles(query: string, options?: { limit?: number }): Promise<{ path: string; state: FileState; language: IndexedLanguage }[]>;
  outline(file: string): Promise<FileOutline | undefined>;
}

/** Files read for ranking, at most: the index lists no more in one call. */
export const MAX_RANKED_FILES = 10_000;
/** A file larger than this is ranked by its path and outline only (its text is not read). */
const MAX_TEXT_BYTES = 1024 * 1024;
/** Text read in all, at most: past it, files are ranked by their path and outline only. */
const MAX_TOTAL_TEXT_BYTES = 64 * 1024 * 1024;
/** Files read at once. */
const READ_CONCURRENCY = 16;

/**
 * The workspace's parsed files, as locate and the map take them: outlines from the index, text
 * from disk (a file gone or unreadable since it was indexed is left out; past 1 MiB for one file
 * or 64 MiB in all, a file keeps its path and outline only), imports resolved to workspace paths.
 *
 * @example const files = await codeFiles(index); files[0] // { path: 'src/a.ts', text: '…', definitions: […], … }
 */
export async function codeFiles(source: OutlineSource): Promise<MapFile[]> {
  const listed = (await source.findFiles('', { limit: MAX_RANKED_FILES })).filter((file) => file.state === 'parsed');
  const loaded: (MapFile & { importSources: string[] })[] = [];
  const budget = { bytes: MAX_TOTAL_TEXT_BYTES };
  for (let start = 0; start < listed.length; start += READ_CONCURRENCY) {
    const batch = await Promise.all(listed.slice(start, start + READ_CONCURRENCY).map((file) => loadFile(source, file.path, budget)));
    for (const file of batch) if (file) loaded.push(file);
  }
  const resolver = new ImportResolver(loaded.map((file) => file.path));
  return loaded.map(({ importSources, ...file }) => ({
    ...file,
    imports: [...new Set(importSources.flatMap((source) => resolver.resolve(file.path, source)))],
  }));
}

async function loadFile(source: OutlineSource, file: string, budget: { bytes: number }): Promise<(MapFile & { importSources: string[] }) | undefined> {
  const outline = await source.outline(file);
  if (!outline) return undefined;
  let text = '';
  try {
    const handle = await fs.open(path.join(source.root, file), 'r');
    try {
      const { size } = await handle.stat();
      if (size <= MAX_TEXT_BYTES && size <= budget.bytes) {
        budget.bytes -= size;
        text = await handle.readFile('utf8');
      }
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  return {
    path: file,
    text,
    definitions: outline.definitions.map((definition) => ({
      name: definition.name,
      line: definition.range.start.line,
      kind: definition.kind,
      container: definition.container,
      signature: definition.signature,
    })),
    references: outline.references.map((reference) => reference.name),
    imports: [],
    importSources: outline.imports.map((entry) => entry.source),
  };
}

export interface CodeTaskOptions {
  /** How git history is read (bounded by default); `false` ranks without it. */
  history?: GitHistoryOptions | false;
}

async function historyOf(root: string, options: CodeTaskOptions): Promise<ChangeHistory> {
  return options.history === false ? { commits: [] } : readGitHistory(root, options.history);
}

/**
 * The files most likely to need a change for `task`, with reasons (src/core/code/locate.ts).
 *
 * @example await locateFiles(index, 'fix(router): trailing slash', { limit: 5 })
 */
export async function locateFiles(source: OutlineSource, task: string, options: CodeTaskOptions & { limit?: number } = {}): Promise<LocatedFile[]> {
  const [files, history] = await Promise.all([codeFiles(source), historyOf(source.root, options)]);
  return locate({ task, files, history, limit: options.limit });
}

/**
 * The repository map for a task and focus files within `tokens` (src/core/code/repo-map.ts).
 * Focus files are workspace-relative paths; ones the index does not hold are left out.
 *
 * @example (await mapRepository(index, { task: 'add a realm option', focus: ['src/jwt.ts'], tokens: 1024 })).text
 */
export async function mapRepository(
  source: OutlineSource,
  request: { task?: string; focus?: readonly string[]; tokens: number },
  options: CodeTaskOptions = {},
): Promise<RepoMap> {
  const [files, history] = await Promise.all([codeFiles(source), historyOf(source.root, options)]);
  return repositoryMap({ files, history, ...request });
}
