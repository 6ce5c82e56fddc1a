// What the workspace's code index says is in scope in a file, for the builtin model: the names
// the file can use bare (its own definitions, the names it imports) and the names that follow a
// dot (the members of its classes and of the classes it imports, and everything the files it
// imports define: `utils.` of `import * as utils`). The model reads only the occurrences of
// tokens in the project; a name the project has never seen after this context (a helper just
// imported, a method of a class written yesterday) gets no vote, and the model says nothing
// when the user has typed its first letters. The scope names it (decoder.ts settlePending).
//
// Core declares what it reads of the index (ScopeIndex; the code index's CodeIntel has it) and
// compose hands it over for the local server; without it (no code index, the hosted API) the
// model is exactly what it is without a scope.
import { performance } from 'node:perf_hooks';
import type { CrossFileIndex } from '../cross-file.ts';

/** The names in scope at a request's cursor. */
export interface Scope {
  /** Names the file can use bare: its own definitions and the names it imports. */
  names: readonly string[];
  /** Names after a dot: members of the file's and the imported files' definitions, and what the imported files define. */
  members: readonly string[];
}

/** The request a scope is read for. */
export interface ScopeRequest {
  prefix: string;
  suffix: string;
  /** The document's path as the client named it (without one there is no scope). */
  filePath?: string;
}

/** Gives the builtin provider the scope of a request (undefined: none known). */
export interface ScopeSource {
  scopeOf(request: ScopeRequest, signal?: AbortSignal): Promise<Scope | undefined>;
}

/** What the scope reads of a workspace's code index. */
export type ScopeIndex = Pick<CrossFileIndex, 'importsOf' | 'findSymbols'>;

export interface IndexScopeOptions {
  /** The workspace-relative path of a request's filePath, or undefined when it is not a workspace file. */
  relativePath?: (filePath: string) => string | undefined;
  /** Time the index may take before the request goes on without a scope (default 30 ms). */
  deadlineMs?: number;
  /** How long a file's names and imports are reused (default 5000 ms: a keystroke reuses them). */
  cacheMs?: number;
}

/** Files' outlines remembered, and for how long (a keystroke reuses them). */
const CACHE_ENTRIES = 64;
const CACHE_MS = 5000;
/** Definitions read per file, at most. */
const MAX_DEFINITIONS = 2000;

interface FileNames {
  /** Top-level definitions (no container). */
  topLevel: string[];
  /** Definitions inside another (members), by their container's name. */
  members: Map<string, string[]>;
}

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

/**
 * The scope of a request over a workspace's code index. The file's own names count only when
 * the request's text has them: the index's view of the file may be older than the text being
 * typed (a name being renamed), and the line being typed defines nothing yet.
 *
 * @example
 * const scope = new IndexScope(code.index, { relativePath: (p) => p });
 * await scope.scopeOf({ prefix: "import { Router } from './router';\nconst r = new Ro", suffix: '', filePath: 'src/app.ts' });
 * // { names: ['Router', 'app', …], members: ['add', 'match', …] }
 */
export class IndexScope implements ScopeSource {
  private readonly files = new Map<string, { at: number; names: FileNames }>();
  private readonly imports = new Map<string, { at: number; imports: { names: string[]; files: string[] }[] }>();

  constructor(
    private readonly index: ScopeIndex,
    private readonly options: IndexScopeOptions = {},
  ) {}

  async scopeOf(request: ScopeRequest, signal?: AbortSignal): Promise<Scope | undefined> {
    if (request.filePath === undefined || signal?.aborted) return undefined;
    const file = (this.options.relativePath ?? ((p: string) => p))(request.filePath);
    if (file === undefined) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.options.deadlineMs ?? 30);
      signal?.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    try {
      return await Promise.race([this.read(file, request).catch(() => undefined), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(file: string, request: ScopeRequest): Promise<Scope | undefined> {
    const [own, imports] = await Promise.all([this.namesOf(file), this.importsOf(file)]);
    const words = new Set<string>();
    for (const text of [request.prefix, request.suffix]) for (const word of text.match(WORD) ?? []) words.add(word);
    const names = new Set<string>();
    const members = new Set<string>();
    for (const name of own.topLevel) if (words.has(name)) names.add(name);
    for (const [container, list] of own.members) if (words.has(container)) for (const name of list) if (words.has(name)) members.add(name);
    const imported = new Set<string>();
    const files = new Set<string>();
    for (const entry of imports) {
      for (const name of entry.names) {
        if (!words.has(name)) continue;
        names.add(name);
        imported.add(name);
      }
      for (const path of entry.files) files.add(path);
    }
    for (const path of files) {
      const theirs = await this.namesOf(path);
      for (const name of theirs.topLevel) members.add(name);
      for (const [container, list] of theirs.members) if (imported.has(container)) for (const name of list) members.add(name);
    }
    if (names.size === 0 && members.size === 0) return undefined;
    return { names: [...names], members: [...members] };
  }

  private async namesOf(path: string): Promise<FileNames> {
    const known = this.files.get(path);
    if (known && performance.now() - known.at < (this.options.cacheMs ?? CACHE_MS)) return known.names;
    const definitions = await this.index.findSymbols('', { file: path, limit: MAX_DEFINITIONS, view: 'editor' });
    const names: FileNames = { topLevel: [], members: new Map() };
    for (const definition of definitions) {
      if (definition.container === undefined) names.topLevel.push(definition.name);
      else {
        const list = names.members.get(definition.container);
        if (list) list.push(definition.name);
        else names.members.set(definition.container, [definition.name]);
      }
    }
    remember(this.files, path, { at: performance.now(), names });
    return names;
  }

  private async importsOf(file: string): Promise<{ names: string[]; files: string[] }[]> {
    const known = this.imports.get(file);
    if (known && performance.now() - known.at < (this.options.cacheMs ?? CACHE_MS)) return known.imports;
    const imports = await this.index.importsOf(file, { view: 'editor' });
    remember(this.imports, file, { at: performance.now(), imports });
    return imports;
  }
}

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}
