// A file's outline from its tree-sitter tree: definitions (name, kind, range, container,
// signature line, doc comment), references (identifier occurrences) and imports, through each
// language's queries (queries/). Everything is bounded: the parse by a time limit (tree-sitter's
// progress callback cancels it), the queries by the same deadline, run over windows of the
// file so that a cap on definitions or references stops the work instead of trimming a list
// already built; nothing here recurses on the tree, so no nesting depth exhausts a stack.
import { Language, Parser, Query, type Node, type QueryCapture, type Point } from 'web-tree-sitter';
import { createRequire } from 'node:module';
import type { CodeLanguage, Definition, FileOutline, Import, Reference, SymbolKind } from '../../core/code/model.ts';
import { LIMITS, SYMBOL_KINDS } from '../../core/code/model.ts';
import { LANGUAGE_SPECS, type LanguageSpec } from './queries/index.ts';

/** The limits extraction runs under (model.ts LIMITS by default). */
export interface ExtractLimits {
  parseTimeoutMs: number;
  maxDefinitions: number;
  maxReferences: number;
  maxImports: number;
  /** Characters of source per query window (tests make it small). */
  windowChars?: number;
}

/** The parse ran out of time: the file is indexed as text. */
export class ParseTimeout extends Error {
  override name = 'ParseTimeout';
}

/** Characters of source per query window. */
const WINDOW_CHARS = 32 * 1024;
/** Characters of an import's source kept. */
const MAX_IMPORT_CHARS = 500;

const KINDS = new Set<string>(SYMBOL_KINDS);
/** What a reference's name starts with: a letter, `_` or `$` (not a shell's `.` or `1`). */
const NAME_START = /^[\p{L}_$]/u;
/** Kinds whose functions are methods. */
const TYPE_KINDS = new Set<string>(['class', 'interface', 'trait', 'struct', 'enum', 'container']);
/** Kinds inside which a variable is a local, not a definition worth listing. */
const BODY_KINDS = new Set<string>(['function', 'method', 'constructor']);
/** Kinds left out inside a function's body. */
const LOCAL_KINDS = new Set<string>(['variable', 'constant', 'field', 'property']);

const require = createRequire(import.meta.url);

/** The grammar's file of @vscode/tree-sitter-wasm. */
export function grammarPath(grammar: string): string {
  return require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${grammar}.wasm`);
}

interface LoadedLanguage {
  language: Language;
  spec: LanguageSpec;
  /** The outline's patterns alone (once the references are capped). */
  outline: Query;
  /** The outline's and the references' patterns: one walk of the tree finds both. */
  combined: Query;
}

let initialized: Promise<void> | undefined;

/**
 * Parses files and extracts their outlines; one per thread (tree-sitter's parser is not
 * re-entrant). Grammars load on first use.
 *
 * @example
 *   const extractor = new Extractor();
 *   const outline = await extractor.extract('export function f() {}', 'typescript');
 *   outline.definitions[0]; // { name: 'f', kind: 'function', … }
 */
export class Extractor {
  private parser: Parser | undefined;
  private readonly loaded = new Map<CodeLanguage, Promise<LoadedLanguage>>();

  constructor(private readonly limits: ExtractLimits = LIMITS) {}

  /** The outline of `text` as `language`; throws ParseTimeout when the parse or the queries run out of time. */
  async extract(text: string, language: CodeLanguage): Promise<FileOutline> {
    const loaded = await this.load(language);
    const parser = this.parser!;
    parser.setLanguage(loaded.language);
    const deadline = performance.now() + this.limits.parseTimeoutMs;
    const outOfTime = () => performance.now() > deadline;
    let tree;
    try {
      tree = parser.parse(text, null, { progressCallback: outOfTime });
    } finally {
      // A cancelled parse leaves the parser mid-document; the next one must start afresh.
      parser.reset();
    }
    if (!tree) throw new ParseTimeout(`tree-sitter did not finish within ${this.limits.parseTimeoutMs} ms`);
    try {
      const outline = outlineOf(tree.rootNode, text, language, loaded, this.limits, outOfTime);
      if (outOfTime()) throw new ParseTimeout(`the outline took longer than ${this.limits.parseTimeoutMs} ms`);
      return outline;
    } finally {
      tree.delete();
    }
  }

  /** Frees the parser, the grammars and their queries. */
  dispose(): void {
    for (const pending of this.loaded.values()) {
      void pending.then(
        (loaded) => {
          loaded.outline.delete();
          loaded.combined.delete();
        },
        () => undefined,
      );
    }
    this.loaded.clear();
    this.parser?.delete();
    this.parser = undefined;
  }

  private load(language: CodeLanguage): Promise<LoadedLanguage> {
    let pending = this.loaded.get(language);
    if (!pending) {
      pending = (async () => {
        initialized ??= Parser.init();
        await initialized;
        this.parser ??= new Parser();
        const spec = LANGUAGE_SPECS[language];
        const grammar = await Language.load(grammarPath(spec.grammar));
        return { language: grammar, spec, outline: new Query(grammar, spec.outline), combined: new Query(grammar, `${spec.outline}\n${spec.references}`) };
      })();
      this.loaded.set(language, pending);
    }
    return pending;
  }
}

interface RawDefinition {
  node: Node;
  nameNode: Node;
  name: string;
  kind: string;
  pattern: number;
  container?: string;
  doc?: Node;
}

interface RawScope {
  start: number;
  end: number;
  name: string;
  kind: string;
  definition?: RawDefinition;
}

/** Windows of the file as tree-sitter points: [start offset, start point, end point]. */
function windowsOf(text: string, windowChars: number): { start: number; end: number; startPosition: Point; endPosition: Point }[] {
  const windows: { start: number; end: number; startPosition: Point; endPosition: Point }[] = [];
  let row = 0;
  let lineStart = 0;
  let offset = 0;
  let startPosition: Point = { row: 0, column: 0 };
  let start = 0;
  while (offset < text.length) {
    const target = Math.min(text.length, start + windowChars);
    // Advance line by line to the window's end.
    while (offset < target) {
      const newline = text.indexOf('\n', offset);
      if (newline < 0 || newline >= target) {
        offset = target;
        break;
      }
      row++;
      lineStart = newline + 1;
      offset = newline + 1;
    }
    const endPosition: Point = { row, column: offset - lineStart };
    windows.push({ start, end: offset, startPosition, endPosition });
    start = offset;
    startPosition = endPosition;
  }
  if (windows.length === 0) windows.push({ start: 0, end: 0, startPosition, endPosition: startPosition });
  return windows;
}

function outlineOf(root: Node, text: string, language: CodeLanguage, loaded: LoadedLanguage, limits: ExtractLimits, outOfTime: () => boolean): FileOutline {
  const windows = windowsOf(text, limits.windowChars ?? WINDOW_CHARS);
  const definitions = new Map<number, RawDefinition>();
  const scopes: RawScope[] = [];
  const imports: { node: Node; source: string }[] = [];
  const importNames: { at: number; name: string }[] = [];
  const comments: Node[] = [];
  /** Identifier occurrences, definitions' names among them until the end. */
  const occurrences: { start: number; name: string; row: number; column: number }[] = [];
  let truncated = false;

  // One query, window by window: definitions, imports, comments and references together; the
  // outline's patterns alone once the references are capped.
  for (const window of windows) {
    if (outOfTime()) {
      truncated = true;
      break;
    }
    const referencesFull = occurrences.length >= limits.maxReferences + definitions.size;
    if (referencesFull && definitions.size >= limits.maxDefinitions) {
      truncated = true;
      break;
    }
    const query = referencesFull ? loaded.outline : loaded.combined;
    const matches = query.matches(root, { startPosition: window.startPosition, endPosition: window.endPosition, progressCallback: outOfTime });
    for (const match of matches) {
      const captures = match.captures;
      const first = captures[0];
      if (!first) continue;
      // Most matches are references: one capture.
      if (captures.length === 1 && first.name === 'reference') {
        const node = first.node;
        const start = node.startIndex;
        if (start < window.start || start >= window.end) continue;
        if (occurrences.length >= limits.maxReferences + limits.maxDefinitions) {
          truncated = true;
          continue;
        }
        const name = text.slice(start, node.endIndex);
        if (name.length === 0 || name.length > LIMITS.maxNameChars || !NAME_START.test(name)) continue;
        const { row, column } = node.startPosition;
        occurrences.push({ start, name, row, column });
        continue;
      }
      const capture = (name: string) => captures.find((one: QueryCapture) => one.name === name)?.node;
      const kindCapture = captures.find((one: QueryCapture) => one.name.startsWith('definition.'));
      if (kindCapture) {
        const nameNode = capture('name');
        if (!nameNode || nameNode.startIndex < window.start || nameNode.startIndex >= window.end) continue;
        const kind = kindCapture.name.slice('definition.'.length);
        const existing = definitions.get(nameNode.startIndex);
        if (existing && existing.pattern <= match.patternIndex) continue;
        if (!existing && definitions.size >= limits.maxDefinitions) {
          truncated = true;
          continue;
        }
        const name = text.slice(nameNode.startIndex, nameNode.endIndex);
        if (name.length === 0 || name.length > LIMITS.maxNameChars || !KINDS.has(kind)) continue;
        const containerNode = capture('container.name');
        let container = containerNode ? text.slice(containerNode.startIndex, containerNode.endIndex) : undefined;
        let simpleName = name;
        // C++'s `a::B::f`: the scope is the container, the last name the definition's.
        const qualified = name.lastIndexOf('::');
        if (qualified > 0) {
          container = container ? `${container}::${name.slice(0, qualified)}` : name.slice(0, qualified);
          simpleName = name.slice(qualified + 2);
        }
        definitions.set(nameNode.startIndex, {
          node: kindCapture.node,
          nameNode,
          name: simpleName,
          kind,
          pattern: match.patternIndex,
          container,
          doc: capture('doc'),
        });
        continue;
      }
      const scope = capture('container');
      if (scope) {
        const nameNode = capture('name');
        if (scope.startIndex >= window.start && scope.startIndex < window.end && nameNode) {
          scopes.push({ start: scope.startIndex, end: scope.endIndex, name: text.slice(nameNode.startIndex, nameNode.endIndex), kind: 'container' });
        }
        continue;
      }
      const importNode = capture('import');
      if (importNode) {
        const source = capture('import.source');
        if (source && source.startIndex >= window.start && source.startIndex < window.end && imports.length < limits.maxImports) {
          imports.push({ node: importNode, source: cleanImport(text.slice(source.startIndex, source.endIndex)) });
        } else if (imports.length >= limits.maxImports) truncated = true;
        continue;
      }
      const importName = capture('import.name');
      if (importName && importName.startIndex >= window.start && importName.startIndex < window.end) {
        importNames.push({ at: importName.startIndex, name: text.slice(importName.startIndex, importName.endIndex) });
        continue;
      }
      const comment = capture('comment');
      if (comment && comment.startIndex >= window.start && comment.startIndex < window.end) comments.push(comment);
    }
  }

  const lineStarts = lineStartsOf(text);
  const outlineDefinitions = resolveDefinitions([...definitions.values()], scopes, text, lineStarts, language, loaded.spec, comments);

  // References: the occurrences that are not a definition's name, in file order, up to the cap.
  occurrences.sort((a, b) => a.start - b.start);
  const references: Reference[] = [];
  for (const { start, name, row, column } of occurrences) {
    if (definitions.has(start)) continue;
    if (references.length >= limits.maxReferences) {
      truncated = true;
      break;
    }
    references.push({ name, range: { start: { line: row + 1, column: column + 1 }, end: { line: row + 1, column: column + 1 + name.length } } });
  }
  return {
    language,
    definitions: outlineDefinitions,
    references,
    imports: importsWithNames(imports, importNames),
    truncated,
    syntaxErrors: root.hasError,
  };
}

/** Containers, kinds, signatures and docs of the raw definitions, in file order. */
function resolveDefinitions(
  raw: RawDefinition[],
  containers: RawScope[],
  text: string,
  lineStarts: number[],
  language: CodeLanguage,
  spec: LanguageSpec,
  comments: Node[],
): Definition[] {
  const scopes: RawScope[] = [
    ...containers,
    ...raw.map((definition) => ({
      start: definition.node.startIndex,
      end: definition.node.endIndex,
      name: definition.name,
      kind: definition.kind,
      definition,
    })),
  ];
  // Outer before inner: by start, then the longer first.
  scopes.sort((a, b) => a.start - b.start || b.end - a.end);
  const docs = new DocFinder(comments, text, lineStarts, spec);
  const stack: RawScope[] = [];
  const out: Definition[] = [];
  for (const scope of scopes) {
    while (stack.length > 0 && stack[stack.length - 1]!.end <= scope.start) stack.pop();
    // Names of one node (`var a, b = …`) are siblings, not each other's containers.
    let below = stack.length - 1;
    while (below >= 0 && stack[below]!.start === scope.start && stack[below]!.end === scope.end) below--;
    const parent = below >= 0 ? stack[below] : undefined;
    stack.push(scope);
    const definition = scope.definition;
    if (!definition) continue;
    let kind = definition.kind;
    if (parent && BODY_KINDS.has(parent.kind) && LOCAL_KINDS.has(kind)) {
      // A local: kept out of the outline, and out of the containers of what follows.
      stack.pop();
      continue;
    }
    if (kind === 'function' && parent && TYPE_KINDS.has(parent.kind)) kind = 'method';
    if (kind === 'method' && definition.name === 'constructor' && (language === 'javascript' || language === 'typescript' || language === 'tsx'))
      kind = 'constructor';
    if (language === 'python' && kind === 'variable' && /^[A-Z][A-Z0-9_]*$/.test(definition.name)) kind = 'constant';
    scope.kind = kind;
    const { node, nameNode } = definition;
    const start = node.startPosition;
    const end = node.endPosition;
    const nameStart = nameNode.startPosition;
    const nameEnd = nameNode.endPosition;
    const docText = definition.doc ? cleanDocstring(text.slice(definition.doc.startIndex, definition.doc.endIndex)) : docs.before(node);
    const item: Definition = {
      name: definition.name,
      kind: kind as SymbolKind,
      range: { start: { line: start.row + 1, column: start.column + 1 }, end: { line: end.row + 1, column: end.column + 1 } },
      nameRange: { start: { line: nameStart.row + 1, column: nameStart.column + 1 }, end: { line: nameEnd.row + 1, column: nameEnd.column + 1 } },
      signature: lineAt(text, lineStarts, start.row).trim().slice(0, LIMITS.maxSignatureChars),
    };
    const container = definition.container ?? parent?.name;
    if (container !== undefined) item.container = container;
    if (docText) item.doc = docText;
    out.push(item);
  }
  out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
  return out;
}

/** Finds the comment block right above a definition (no blank line between, nothing else on its lines). */
class DocFinder {
  /** Comments by the row they end on (the last one there). */
  private readonly byEndRow = new Map<number, { node: Node; startRow: number; startIndex: number; endIndex: number }>();

  constructor(
    comments: Node[],
    private readonly text: string,
    private readonly lineStarts: number[],
    private readonly spec: LanguageSpec,
  ) {
    for (const node of comments) {
      const startRow = node.startPosition.row;
      // Only a comment with nothing before it on its line can be a doc.
      if (!this.startsLine(startRow, node.startIndex)) continue;
      // A line comment may hold its line break (Rust's `///`): it ends on the line it is on.
      const end = node.endPosition;
      const endRow = end.column === 0 && end.row > startRow ? end.row - 1 : end.row;
      this.byEndRow.set(endRow, { node, startRow, startIndex: node.startIndex, endIndex: node.endIndex });
    }
  }

  before(definition: Node): string | undefined {
    if (this.byEndRow.size === 0) return undefined;
    let anchor = definition;
    // Up through wrappers (`export`, a decorator), at most a few levels.
    for (let depth = 0; depth < 4; depth++) {
      const parent = anchor.parent;
      if (!parent || !this.spec.wrappers?.includes(parent.type)) break;
      anchor = parent;
    }
    // Back over attributes (`#[derive(…)]`).
    if (this.spec.attributes) {
      for (let sibling = anchor.previousNamedSibling; sibling && this.spec.attributes.includes(sibling.type); sibling = sibling.previousNamedSibling)
        anchor = sibling;
    }
    const row = anchor.startPosition.row;
    // A definition that does not start its line (a field of a one-line struct) has no doc of its own.
    if (!this.startsLine(row, anchor.startIndex)) return undefined;
    const block: string[] = [];
    let found = this.byEndRow.get(row - 1);
    while (found && block.length < 200) {
      block.unshift(this.text.slice(found.startIndex, found.endIndex));
      found = this.byEndRow.get(found.startRow - 1);
    }
    if (block.length === 0) return undefined;
    const doc = cleanComment(block.join('\n'));
    return doc.length > 0 ? doc.slice(0, LIMITS.maxDocChars) : undefined;
  }

  /** Whether only white space comes before `offset` on its line. */
  private startsLine(row: number, offset: number): boolean {
    const start = this.lineStarts[row] ?? 0;
    for (let at = start; at < offset; at++) {
      const code = this.text.charCodeAt(at);
      if (code !== 32 && code !== 9 && code !== 13) return false;
    }
    return true;
  }
}

/** A comment's text without its markers (`/**`, ` * `, `*\/`, `//`, `///`, `#`). */
export function cleanComment(comment: string): string {
  return comment
    .replace(/^\s*\/\*+!?/, '')
    .replace(/\*+\/\s*$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/[/!]?|#+|\*(?!\/))\s?/, '').replace(/\s+$/, ''))
    .join('\n')
    .trim();
}

/** A Python docstring's text: quotes and prefixes gone, lines dedented. */
function cleanDocstring(literal: string): string | undefined {
  const body = literal.replace(/^[rRuUbBfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
  const lines = body.split('\n');
  const indents = lines
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.length - line.trimStart().length);
  const indent = indents.length > 0 ? Math.min(...indents) : 0;
  const doc = [lines[0]!.trim(), ...lines.slice(1).map((line) => line.slice(indent).trimEnd())].join('\n').trim();
  return doc.length > 0 ? doc.slice(0, LIMITS.maxDocChars) : undefined;
}

function cleanImport(source: string): string {
  return source
    .replace(/^<(.*)>$/s, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_IMPORT_CHARS);
}

/** Each import with the names it takes (the `@import.name` captures inside its range). */
function importsWithNames(imports: { node: Node; source: string }[], names: { at: number; name: string }[]): Import[] {
  names.sort((a, b) => a.at - b.at);
  return imports
    .map(({ node, source }) => {
      const start = node.startPosition;
      const end = node.endPosition;
      const to = node.endIndex;
      const taken: string[] = [];
      for (let i = firstAtOrAfter(names, node.startIndex); i < names.length && names[i]!.at < to; i++) taken.push(names[i]!.name);
      return {
        source,
        names: taken,
        range: { start: { line: start.row + 1, column: start.column + 1 }, end: { line: end.row + 1, column: end.column + 1 } },
      };
    })
    .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
}

/** The index of the first name at or after `offset` (names sorted by offset). */
function firstAtOrAfter(names: { at: number }[], offset: number): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle]!.at < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

function lineAt(text: string, lineStarts: number[], row: number): string {
  const start = lineStarts[row] ?? text.length;
  const next = lineStarts[row + 1];
  return text.slice(start, next === undefined ? text.length : next - 1).replace(/\r$/, '');
}
