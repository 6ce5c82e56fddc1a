// Code intelligence (docs/code-intelligence.md): the code index's status and searches, locate and
// the repository map, and what the language servers answer. The index and the language service
// do the work (the same ones agents call); these handlers translate the routes' input into their
// calls and bound what a request may cost: text searches stop at their match and time limits,
// and locate and the map (which read the workspace's parsed files, up to 64 MiB) run one at a time.
import { locateFiles, mapRepository } from '../../compose/code-tasks.ts';
import { SKIP_REASONS, SYMBOL_KINDS, type SymbolKind } from '../../core/code/model.ts';
import type { TextSearchItem } from '../../core/code/service.ts';
import { LoomError } from '../../core/errors.ts';
import type { EditBase, EditPreview } from '../../core/language/types.ts';
import { codeReplaceHandlers } from './code-replace.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

/** Skipped files listed by the status route unless asked otherwise. */
const DEFAULT_SKIPPED = 100;

export function codeHandlers(services: LocalServices): LocalHandlersOf<'Code'> {
  const { code, languages } = services;
  const oneAtATime = serialQueue();
  return {
    getCodeIndexStatus: async ({ query }) => {
      const skipped = query.limit === 0 ? [] : await code.skipped({ limit: query.limit ?? DEFAULT_SKIPPED });
      return {
        index: code.status(),
        skipped: skipped.map((entry) => ({ ...entry, why: SKIP_REASONS[entry.reason] ?? entry.reason })),
        languageServers: languages.status(),
      };
    },
    findCodeFiles: async ({ query }, { signal }) => {
      // Quick open asks on every key and drops the question before: one it dropped while this
      // waited its turn is not scored (a scan of every path) for no one.
      signal.throwIfAborted();
      return { files: await code.findFiles(query.query, { limit: query.limit ?? 50 }) };
    },
    listCodePaths: async () => ({ paths: await code.listPaths() }),
    findCodeSymbols: async ({ query }) => {
      const text = query.query ?? '';
      if (text.trim() === '' && query.path === undefined) {
        throw new LoomError('validation_error', 'Give a query, or a path to list the definitions of one file.');
      }
      return {
        symbols: await code.findSymbols(text, {
          limit: query.limit ?? 50,
          ...(query.path !== undefined ? { file: query.path.replace(/^\.\//, '') } : {}),
          ...(query.kinds ? { kinds: symbolKinds(query.kinds) } : {}),
          view: query.view ?? 'disk',
        }),
      };
    },
    searchCodeText: async ({ query }, { signal }) => {
      const matches: Extract<TextSearchItem, { type: 'match' }>[] = [];
      const search = code.searchText({
        pattern: query.pattern,
        regex: query.regex === true,
        caseSensitive: query.case === 'sensitive' ? true : query.case === 'insensitive' ? false : 'smart',
        wholeWord: query.wholeWord === true,
        include: query.include ?? [],
        exclude: query.exclude ?? [],
        maxMatches: query.maxMatches ?? 500,
        maxMatchesPerFile: query.maxMatchesPerFile ?? 100,
        timeoutMs: query.timeoutMs ?? 10_000,
        view: query.view ?? 'disk',
        signal,
      });
      for await (const item of search) {
        if (item.type === 'match') {
          matches.push(item);
          continue;
        }
        const { files, matches: matchCount, skipped, truncated, elapsedMs } = item;
        return { matches: matches.map(({ type: _type, ...match }) => match), files, matchCount, skipped, ...(truncated ? { truncated } : {}), elapsedMs };
      }
      // The search always ends with its summary; an index closed under it (the server stopping) ends here.
      return {
        matches: matches.map(({ type: _type, ...match }) => match),
        files: 0,
        matchCount: matches.length,
        skipped: 0,
        truncated: 'aborted' as const,
        elapsedMs: 0,
      };
    },
    searchCodeRanked: async ({ query }) => ({ hits: await code.searchRanked(query.query, { limit: query.limit ?? 20 }) }),
    locateCode: async ({ body }) =>
      oneAtATime(async () => ({
        files: await locateFiles(code, body.task, { limit: body.limit ?? 10, ...(body.history === false ? { history: false } : {}) }),
      })),
    mapCode: async ({ body }) =>
      oneAtATime(() =>
        mapRepository(
          code,
          {
            ...(body.task?.trim() ? { task: body.task } : {}),
            focus: (body.focus ?? []).map((file) => file.replace(/^\.\//, '')),
            tokens: body.tokens ?? 1024,
          },
          body.history === false ? { history: false } : {},
        ),
      ),
    findDefinition: async ({ query }, { signal }) => languages.definition(query.path, position(query), signal),
    findReferences: async ({ query }, { signal }) =>
      languages.references(query.path, position(query), { includeDeclaration: query.includeDeclaration ?? true }, signal),
    hoverCode: async ({ query }, { signal }) => {
      const hover = await languages.hover(query.path, position(query), signal);
      return hover ? { markdown: hover.markdown, ...(hover.range ? { range: hover.range } : {}) } : { markdown: null };
    },
    getFileDiagnostics: async ({ query }, { signal }) =>
      query.fresh === false ? languages.diagnostics(query.path) : languages.currentDiagnostics(query.path, signal),
    listProblems: async () => languages.problems(),
    previewRename: async ({ body }, { signal }) => languages.renamePreview(body.path, position(body), body.newName, signal),
    applyRename: async ({ body }) => languages.applyEdit(editPreview(body.files)),
    ...codeReplaceHandlers(services),
  };
}

function position(input: { line: number; column: number }): { line: number; column: number } {
  return { line: input.line, column: input.column };
}

/** Kinds named in a query, each one of the index's (SYMBOL_KINDS); an unknown one is a validation error. */
function symbolKinds(kinds: readonly string[]): SymbolKind[] {
  const unknown = kinds.find((kind) => !(SYMBOL_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined) throw new LoomError('validation_error', `"${unknown}" is not a kind of definition; the kinds are ${SYMBOL_KINDS.join(', ')}.`);
  return kinds as SymbolKind[];
}

/** A preview as a client sent it back (`previewedBy` answered it): each base must say what it names (a document's version, a file's SHA-256). */
export function editPreview(
  files: readonly { path: string; base: { kind: 'document' | 'disk'; version?: number; sha256?: string }; edits: EditPreview['files'][number]['edits'] }[],
  previewedBy = 'POST /api/code/rename',
): EditPreview {
  return {
    files: files.map((file) => {
      const { kind, version, sha256 } = file.base;
      let base: EditBase;
      if (kind === 'document' && version !== undefined && sha256 === undefined) base = { kind, version };
      else if (kind === 'disk' && sha256 !== undefined && version === undefined) base = { kind, sha256 };
      else {
        throw new LoomError(
          'bad_request',
          `The base of ${file.path} is not one a preview gives: a document has a version, a file on disk a sha256.`,
          `Send the preview as ${previewedBy} answered it.`,
        );
      }
      return { path: file.path, base, edits: file.edits, diff: '' };
    }),
  };
}

/** Runs tasks one after another: each waits for the one before it to settle. */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
