// What agent tasks know of the code (src/core/agents/intel/intel.ts), made from a workspace's
// code index (the map, locate, symbols, who imports a file) and its language service
// (definitions, references, diagnostics, rename). Either may be missing: a composer session's
// scratch copy may have an index and no language servers.
import { ImportResolver } from '../core/code/imports.ts';
import type { CodeIntel } from '../core/code/service.ts';
import type { AgentCodeIndex, AgentIntel, AgentLanguages } from '../core/agents/intel/intel.ts';
import type { LanguageService } from '../core/language/service.ts';
import { detectLanguage } from '../core/workspace/language.ts';
import { locateFiles, mapRepository, MAX_RANKED_FILES, type CodeTaskOptions, type OutlineSource } from './code-tasks.ts';

/** How long the import graph is reused before it is read again from the index, ms. */
const IMPORT_GRAPH_MS = 5_000;

export interface AgentIntelOptions {
  /** The workspace's code index. */
  index?: OutlineSource & Pick<CodeIntel, 'findSymbols'>;
  languages?: LanguageService;
  /** Longest wait for the servers' diagnostics in one check after an edit (the servers' own request time limit). */
  diagnosticsWaitMs?: number;
  /** How locate and the map read git history. */
  history?: CodeTaskOptions['history'];
}

/**
 * Agent intel over a code index and a language service.
 *
 * @example
 *   new AgentManager({ …, intel: () => agentIntel({ index: code.index, languages, diagnosticsWaitMs: 30_000 }) });
 */
export function agentIntel(options: AgentIntelOptions): AgentIntel {
  return {
    ...(options.index ? { index: indexSide(options.index, options.history) } : {}),
    ...(options.languages ? { languages: languageSide(options.languages, options.diagnosticsWaitMs ?? 30_000) } : {}),
  };
}

function indexSide(index: OutlineSource & Pick<CodeIntel, 'findSymbols'>, history: CodeTaskOptions['history']): AgentCodeIndex {
  const options = history === undefined ? {} : { history };
  let graph: { at: number; importers: Promise<Map<string, string[]>> } | undefined;
  const importGraph = () => {
    const now = Date.now();
    if (!graph || now - graph.at > IMPORT_GRAPH_MS) graph = { at: now, importers: readImporters(index) };
    return graph.importers;
  };
  return {
    map: (request) => mapRepository(index, request, options),
    locate: async (description, limit) => (await locateFiles(index, description, { ...options, limit })).map(({ path, reasons }) => ({ path, reasons })),
    symbols: async (query, limit) =>
      (await index.findSymbols(query, { limit, view: 'disk' })).map((hit) => ({
        name: hit.name,
        kind: hit.kind,
        path: hit.path,
        line: hit.range.start.line,
        ...(hit.container ? { container: hit.container } : {}),
      })),
    importers: async (path, limit) => ((await importGraph()).get(path) ?? []).slice(0, limit),
  };
}

/** Every parsed file's importers, from the index's outlines (no file text read). */
async function readImporters(index: OutlineSource): Promise<Map<string, string[]>> {
  const files = (await index.findFiles('', { limit: MAX_RANKED_FILES })).filter((file) => file.state === 'parsed').map((file) => file.path);
  const resolver = new ImportResolver(files);
  const importers = new Map<string, string[]>();
  for (const file of files) {
    const outline = await index.outline(file);
    for (const entry of outline?.imports ?? []) {
      for (const target of resolver.resolve(file, entry.source)) {
        const list = importers.get(target) ?? [];
        if (!list.includes(file)) list.push(file);
        importers.set(target, list);
      }
    }
  }
  return importers;
}

function languageSide(service: LanguageService, waitMs: number): AgentLanguages {
  return {
    waitMs,
    definition: (path, position, signal) => service.definition(path, position, signal),
    references: (path, position, signal) => service.references(path, position, {}, signal),
    diagnostics: async (path, signal) => {
      const { current, diagnostics } = await service.currentDiagnostics(path, signal);
      return { current, diagnostics };
    },
    serves: (path) => {
      const language = detectLanguage(path, '');
      return service.status().some((server) => server.state !== 'unavailable' && server.languages.includes(language));
    },
    rename: async (path, position, newName, signal) =>
      (await service.renamePreview(path, position, newName, signal)).files.map((file) => ({
        path: file.path,
        edits: file.edits,
        ...(file.base.kind === 'disk' ? { sha256: file.base.sha256 } : {}),
      })),
  };
}
