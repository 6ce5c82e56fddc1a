// Definitions and references from the code index, for a language no server serves here: by the
// name under the cursor, not by type (every definition of that name, every use of it), so the
// service marks the answer `source: 'index'`. The code index (src/core/code, its CodeIntel) has
// both queries; this needs no more of it than NameIndex says.
import { fileUri } from './lsp-convert.ts';
import type { IndexNavigation, SourceFile } from './servers.ts';
import type { CodeLocation, CodeRange, Position } from './types.ts';

/** Most definitions and references one answer lists. */
const MAX_LOCATIONS = 500;

/** What the fallback asks of the code index. */
export interface NameIndex {
  /** Definitions whose name matches `query` (fuzzy; exact names are picked from them). */
  findSymbols(query: string, options?: { limit?: number }): Promise<{ name: string; path: string; nameRange: CodeRange }[]>;
  /** Occurrences of the identifier `name` that are not a definition's name. */
  references(name: string, options?: { limit?: number }): Promise<{ path: string; range: CodeRange }[]>;
}

/**
 * The code index as the service's navigation fallback.
 *
 * @example
 *   const service = new LanguageService({ paths, documents, servers, events, index: indexNavigation(code.index, paths.root) });
 *   await service.definition('notes/build.rb', { line: 4, column: 9 }); // { source: 'index', locations: [...] }
 */
export function indexNavigation(index: NameIndex, root: string): IndexNavigation {
  const definitions = async (name: string): Promise<CodeLocation[]> => {
    const hits = await index.findSymbols(name, { limit: MAX_LOCATIONS });
    return hits.filter((hit) => hit.name === name).map((hit) => ({ path: hit.path, uri: fileUri(root, hit.path), range: hit.nameRange }));
  };
  return {
    async definitions(file, position) {
      const name = identifierAt(file, position);
      return name ? definitions(name) : [];
    },
    async references(file, position, includeDeclaration = true) {
      const name = identifierAt(file, position);
      if (!name) return [];
      const uses = (await index.references(name, { limit: MAX_LOCATIONS })).map((hit) => ({ path: hit.path, uri: fileUri(root, hit.path), range: hit.range }));
      return [...(includeDeclaration ? await definitions(name) : []), ...uses].slice(0, MAX_LOCATIONS);
    },
  };
}

/** The identifier at (or just before) a 1-based position of the file's text, or undefined. */
export function identifierAt(file: SourceFile, position: Position): string | undefined {
  const line = file.text.split(/\r\n|\r|\n/, position.line)[position.line - 1];
  if (line === undefined) return undefined;
  const word = /[\p{L}\p{N}_$]/u;
  let start = position.column - 1;
  // At the end of a name (the cursor just after it), the name before.
  if (!word.test(line[start] ?? '') && word.test(line[start - 1] ?? '')) start--;
  if (!word.test(line[start] ?? '')) return undefined;
  let end = start;
  while (start > 0 && word.test(line[start - 1]!)) start--;
  while (end < line.length && word.test(line[end]!)) end++;
  const name = line.slice(start, end);
  return /^[\p{N}]/u.test(name) ? undefined : name;
}
