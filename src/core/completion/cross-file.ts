// Cross-file context for the model providers (gguf, openai): the definitions, in other files of
// the workspace, of the identifiers around the cursor, written as comments of the file's
// language before the prefix, so that a model completing `router.add(` sees `add`'s parameters
// although router.ts is not in its window. The anchors are Tabby's "declarations" (snippets
// of the definitions the code near the cursor refers to, as comments headed by their path) and
// Continue's context selection (the definitions of imported names first).
//
// Which identifiers: those of the lines nearest the cursor (the word being typed left out: it
// changes on every keystroke and names nothing yet), nearest first, then the names the file
// imports. Which definitions: a name the file itself defines is left out (the model sees the
// file); a name imported from a workspace file takes that file's definition; any other name
// takes its definitions when at most MAX_DEFINERS files define it (`get`, `init`, `name`
// defined everywhere say nothing of which one is meant). A class or interface brings its
// members' signature lines. The best come last, next to the code, and the first ones are the
// ones a model that must cut its prompt loses.
//
// Core declares what it reads of the index (CrossFileIndex; the code index's CodeIntel has it)
// and compose hands it over for the local server. The hosted API has no workspace index: its
// requests get no context; nor does a request without a file (what it defines is not known).
import { performance } from 'node:perf_hooks';
import type { SymbolKind } from '../code/model.ts';
import type { CompletionProvider } from './provider.ts';

/** A definition as the index has it: where, what, its first line and its doc comment. */
export interface IndexedDefinition {
  /** Workspace-relative path. */
  path: string;
  name: string;
  kind: SymbolKind;
  /** The definition it is in (a method's class). */
  container?: string;
  /** Its first line, trimmed. */
  signature: string;
  /** Its doc comment without the comment markers. */
  doc?: string;
  range: { start: { line: number } };
}

/** What cross-file context reads of a workspace's code index (CodeIntel, src/core/code/service.ts, has it). */
export interface CrossFileIndex {
  /** Definitions named exactly one of `names`, at most `perName` of each. */
  definitionsNamed(names: readonly string[], options: { perName: number; view?: 'editor' }): Promise<IndexedDefinition[]>;
  /** A file's imports: the names each takes and the workspace files it names. */
  importsOf(file: string, options: { view?: 'editor' }): Promise<{ names: string[]; files: string[] }[]>;
  /** A file's definitions in order (an empty query lists them all). */
  findSymbols(query: string, options: { file: string; limit: number; view?: 'editor' }): Promise<IndexedDefinition[]>;
}

/** The text around the cursor a context is chosen for. */
export interface CrossFileRequest {
  prefix: string;
  suffix: string;
  /** The document's path as the client named it. */
  filePath?: string;
  language: string;
}

/** What was chosen: the text that goes before the prefix, and the definitions in it (best first). */
export interface CrossFileSelection {
  text: string;
  definitions: IndexedDefinition[];
}

export interface CrossFileOptions {
  /**
   * The workspace-relative path of a request's `filePath` (an absolute one inside the
   * workspace made relative), or undefined when it is not a workspace file.
   */
  relativePath?: (filePath: string) => string | undefined;
  /** Time the selection may take before the request goes on without it (default 50 ms). */
  deadlineMs?: number;
}

/** Files defining a name, at most, for the name to bring a definition when no import says which. */
export const MAX_DEFINERS = 3;
/** Lines before the cursor's line, and after it, whose identifiers count. */
export const LINES_BEFORE = 20;
export const LINES_AFTER = 5;
/** Names looked up per request, at most. */
export const MAX_NAMES = 48;
/** Definitions of container kinds whose members are listed, per request, and members per definition. */
const MAX_EXPANDED = 4;
const MAX_MEMBERS = 12;
/** Lines of a doc comment kept, and characters of any line. */
const MAX_DOC_LINES = 3;
const MAX_LINE_CHARS = 160;
/** Share of a provider's prefix budget the context may take. */
export const CONTEXT_SHARE = 0.25;
/** Selections remembered, and for how long: a keystroke that names the same identifiers reuses one. */
const CACHE_ENTRIES = 32;
const CACHE_MS = 5000;

const CONTAINER_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'struct', 'trait', 'enum', 'module', 'namespace']);

/** Words of the languages' syntax: never a definition worth showing. */
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'abstract and as assert async await break case catch char class const continue def default del delete do double elif else enum ' +
    'except export extends false final finally float fn for from func function go if impl implements import in instanceof int interface ' +
    'is let long match mod module mut namespace new nil none not null of or override package pass private protected pub public raise ' +
    'readonly return self short static str string struct super switch this throw throws true try type typeof undefined union unsafe use ' +
    'var void where while with yield boolean number object any unknown never bigint symbol lambda global nonlocal print require ' +
    'True False None elsif end unless until then begin rescue ensure defer chan select map range fallthrough goto'
  ).split(' '),
);

/** Whether a provider reads the context: the models that read text do; builtin reads the index itself. */
export function readsCrossFileContext(provider: Pick<CompletionProvider, 'kind'>): boolean {
  return provider.kind !== 'builtin';
}

/**
 * The identifiers of the lines around the cursor, nearest first: the cursor's line, then the
 * lines before it and after it by distance (the line before counts nearer than the line after),
 * each line's identifiers nearest the cursor first. The unfinished word at the cursor is left
 * out, and so are keywords and one-letter names.
 *
 * @example
 * identifiersNearCursor('const router = new Router();\nrouter.add(getPa', ', handler);\n') // ['add', 'router', 'handler', 'Router']
 */
export function identifiersNearCursor(prefix: string, suffix: string): string[] {
  const before = lastLines(prefix, LINES_BEFORE + 1);
  const after = firstLines(suffix, LINES_AFTER + 1);
  // The word touching the cursor is being typed.
  const typing = /[\p{L}\p{N}_$]+$/u.exec(before)?.[0] ?? '';
  const beforeLines = before.slice(0, before.length - typing.length).split('\n');
  const afterLines = after.split('\n');
  // The cursor's line: what is before the cursor, then what is after it.
  const cursorLine = identifiers(beforeLines.pop()!)
    .reverse()
    .concat(identifiers(afterLines.shift()!.replace(/^[\p{L}\p{N}_$]+/u, '')));
  const ordered = [...cursorLine];
  for (let distance = 1; distance <= Math.max(beforeLines.length, afterLines.length); distance++) {
    const above = beforeLines[beforeLines.length - distance];
    if (above !== undefined) ordered.push(...identifiers(above).reverse());
    const below = afterLines[distance - 1];
    if (below !== undefined) ordered.push(...identifiers(below));
  }
  const seen = new Set<string>();
  const names: string[] = [];
  for (const name of ordered) {
    if (seen.has(name) || name.length < 2 || KEYWORDS.has(name) || /^\d/.test(name)) continue;
    seen.add(name);
    names.push(name);
  }
  return names;
}

/** The identifiers of a line, in order; a comment's and a string's words are not code. */
function identifiers(line: string): string[] {
  const code = line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/(?:\/\/|#).*$/, '');
  return code.match(/[\p{L}_$][\p{L}\p{N}_$]*/gu) ?? [];
}

function lastLines(text: string, count: number): string {
  let at = text.length;
  for (let i = 0; i < count && at > 0; i++) at = text.lastIndexOf('\n', at - 1);
  return at <= 0 ? text : text.slice(at + 1);
}

function firstLines(text: string, count: number): string {
  let at = -1;
  for (let i = 0; i < count; i++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at);
}

/** The line comment of a language (by its id, else by the file's extension). */
export function lineComment(language: string, filePath = ''): string {
  const id = language.toLowerCase();
  const extension = /\.([A-Za-z0-9]+)$/.exec(filePath)?.[1]?.toLowerCase() ?? '';
  const hash = [
    'python',
    'ruby',
    'bash',
    'shellscript',
    'sh',
    'shell',
    'perl',
    'r',
    'yaml',
    'toml',
    'elixir',
    'powershell',
    'makefile',
    'dockerfile',
    'julia',
    'nim',
  ];
  const dashes = ['lua', 'sql', 'haskell', 'elm', 'ada'];
  if (hash.includes(id) || ['py', 'pyi', 'rb', 'sh', 'bash', 'pl', 'r', 'yml', 'yaml', 'toml', 'ex', 'exs', 'ps1', 'jl', 'nim'].includes(extension)) return '#';
  if (dashes.includes(id) || ['lua', 'sql', 'hs', 'elm', 'adb', 'ads'].includes(extension)) return '--';
  return '//';
}

/**
 * One definition as the model reads it: its path, its doc comment's first lines, its first
 * line and, for a class or interface, its members' first lines, each a line comment.
 *
 * @example
 * formatDefinition({ path: 'src/router.ts', name: 'add', kind: 'method', signature: 'add(method: string, path: string): void {', range }, [], '//')
 * // '// Path: src/router.ts\n// add(method: string, path: string): void {\n'
 */
export function formatDefinition(definition: IndexedDefinition, members: readonly IndexedDefinition[], comment: string): string {
  const line = (text: string) => `${comment} ${text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text}`.trimEnd() + '\n';
  let text = line(`Path: ${definition.path}`);
  const doc = (definition.doc ?? '')
    .split('\n')
    .map((docLine) => docLine.trim())
    .filter(Boolean)
    .slice(0, MAX_DOC_LINES);
  for (const docLine of doc) text += line(docLine);
  text += line(definition.signature);
  for (const member of members.slice(0, MAX_MEMBERS)) text += line(`  ${member.signature}`);
  return text;
}

/**
 * A member whose class (or interface…) is chosen too is shown within it, at the better of the
 * two places.
 */
function withContainers(chosen: IndexedDefinition[]): IndexedDefinition[] {
  const containers = new Map<string, IndexedDefinition>();
  for (const definition of chosen) if (CONTAINER_KINDS.has(definition.kind)) containers.set(`${definition.path}\u0000${definition.name}`, definition);
  return chosen.map((definition) =>
    definition.container === undefined ? definition : (containers.get(`${definition.path}\u0000${definition.container}`) ?? definition),
  );
}

interface Cached {
  at: number;
  selection: CrossFileSelection;
}

/**
 * Chooses and writes the cross-file context of a completion request over a workspace's code
 * index, within a size and by a deadline.
 *
 * @example
 * const context = new CrossFileContext(code.index, { relativePath: (p) => p });
 * const { text } = await context.select({ prefix, suffix, filePath: 'src/app.ts', language: 'typescript' }, 2048);
 * // text: '// Path: src/router.ts\n// export class Router {\n//   add(method: string, path: string): void {\n'
 */
export class CrossFileContext {
  private readonly cache = new Map<string, Cached>();
  /** Files' definitions (for members), read at most once per CACHE_MS. */
  private readonly fileDefinitions = new Map<string, { at: number; definitions: IndexedDefinition[] }>();

  constructor(
    private readonly index: CrossFileIndex,
    private readonly options: CrossFileOptions = {},
  ) {}

  /**
   * The context for `request` in at most `maxChars` characters; empty when there is none, when
   * the index fails, or past the deadline (the request never waits longer for it).
   */
  async select(request: CrossFileRequest, maxChars: number, signal?: AbortSignal): Promise<CrossFileSelection> {
    const none: CrossFileSelection = { text: '', definitions: [] };
    if (maxChars <= 0 || signal?.aborted) return none;
    const deadlineMs = this.options.deadlineMs ?? 50;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<CrossFileSelection>((resolve) => {
      timer = setTimeout(() => resolve(none), deadlineMs);
      signal?.addEventListener('abort', () => resolve(none), { once: true });
    });
    try {
      return await Promise.race([this.choose(request, maxChars).catch(() => none), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async choose(request: CrossFileRequest, maxChars: number): Promise<CrossFileSelection> {
    // Without a path the text may be of any file: what it defines itself is not known.
    if (request.filePath === undefined) return { text: '', definitions: [] };
    const file = (this.options.relativePath ?? ((path: string) => path))(request.filePath);
    const near = identifiersNearCursor(request.prefix, request.suffix);
    const imports = file === undefined ? [] : await this.index.importsOf(file, { view: 'editor' });
    // Which file each imported name comes from (a name imported from a workspace file).
    const importedFrom = new Map<string, Set<string>>();
    const importedFiles = new Set<string>();
    for (const entry of imports) {
      for (const path of entry.files) importedFiles.add(path);
      if (entry.files.length === 0) continue;
      for (const name of entry.names) importedFrom.set(name, new Set(entry.files));
    }
    const names = [...new Set([...near, ...[...importedFrom.keys()].reverse()])].filter((name) => !KEYWORDS.has(name)).slice(0, MAX_NAMES);
    if (names.length === 0) return { text: '', definitions: [] };

    const key = `${file ?? ''}\u0000${maxChars}\u0000${names.join(',')}`;
    const cached = this.cache.get(key);
    if (cached && performance.now() - cached.at < CACHE_MS) return cached.selection;

    const found = await this.index.definitionsNamed(names, { perName: MAX_DEFINERS + 2, view: 'editor' });
    const byName = new Map<string, IndexedDefinition[]>();
    for (const definition of found) {
      const list = byName.get(definition.name);
      if (list) list.push(definition);
      else byName.set(definition.name, [definition]);
    }
    const chosen: IndexedDefinition[] = [];
    for (const name of names) {
      const definitions = byName.get(name) ?? [];
      // The file defines it: the model has it in view, or it is the file's own business.
      if (file !== undefined && definitions.some((definition) => definition.path === file)) continue;
      const from = importedFrom.get(name);
      const imported = definitions.filter((definition) => from?.has(definition.path));
      if (imported.length > 0) chosen.push(...imported.slice(0, 2));
      else {
        const definers = new Set(definitions.map((definition) => definition.path));
        if (definers.size === 0 || definers.size > MAX_DEFINERS) continue;
        // From the files the file imports first, then the rest.
        const ranked = [...definitions].sort((a, b) => Number(importedFiles.has(b.path)) - Number(importedFiles.has(a.path)));
        chosen.push(...ranked.slice(0, 2));
      }
    }
    const selection = await this.write(withContainers(chosen), maxChars, lineComment(request.language, request.filePath));
    this.cache.delete(key);
    this.cache.set(key, { at: performance.now(), selection });
    while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return selection;
  }

  private async definitionsIn(path: string): Promise<IndexedDefinition[]> {
    const known = this.fileDefinitions.get(path);
    if (known && performance.now() - known.at < CACHE_MS) return known.definitions;
    const definitions = await this.index.findSymbols('', { file: path, limit: 2000, view: 'editor' });
    this.fileDefinitions.delete(path);
    this.fileDefinitions.set(path, { at: performance.now(), definitions });
    while (this.fileDefinitions.size > CACHE_ENTRIES) this.fileDefinitions.delete(this.fileDefinitions.keys().next().value!);
    return definitions;
  }

  /** The blocks of the definitions, best first, that fit in `maxChars`; written best last. */
  private async write(chosen: IndexedDefinition[], maxChars: number, comment: string): Promise<CrossFileSelection> {
    const blocks: { definition: IndexedDefinition; text: string }[] = [];
    let used = 0;
    let expanded = 0;
    const seen = new Set<string>();
    for (const definition of chosen) {
      const id = `${definition.path}:${definition.range.start.line}:${definition.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      let members: IndexedDefinition[] = [];
      if (CONTAINER_KINDS.has(definition.kind) && expanded < MAX_EXPANDED) {
        expanded++;
        members = (await this.definitionsIn(definition.path)).filter((member) => member.container === definition.name);
      }
      let text = formatDefinition(definition, members, comment);
      // A class too large for the room left still shows its first members.
      while (used + text.length > maxChars && members.length > 0) {
        members = members.slice(0, Math.min(members.length, MAX_MEMBERS) - 1);
        text = formatDefinition(definition, members, comment);
      }
      if (used + text.length > maxChars) continue;
      used += text.length;
      blocks.push({ definition, text });
    }
    return {
      text: blocks
        .map((block) => block.text)
        .reverse()
        .join(''),
      definitions: blocks.map((block) => block.definition),
    };
  }
}
