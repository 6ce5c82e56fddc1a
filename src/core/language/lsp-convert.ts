// The boundary between LSP and Loom: LSP counts lines and characters from 0 (characters in UTF-16
// code units, the encoding Loom asks for and the protocol's default) and names files by URI;
// Loom counts both from 1 and names files by workspace-relative path. Everything a server sends
// is checked here before Loom uses it: a server is a separate program, possibly confused, so a
// malformed entry is dropped rather than trusted, lists are capped, and nesting is bounded.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as lsp from 'vscode-languageserver-protocol';
import type { CodeDiagnostic, CodeLocation, CodeRange, CodeSymbol, DiagnosticSeverity, HoverAnswer, Position } from './types.ts';

/** Most entries taken from one answer (locations, symbols, diagnostics of a file). */
export const MAX_ENTRIES = 10_000;
/** Longest message kept of a diagnostic, and longest hover text. */
const MAX_TEXT = 64 * 1024;
/** Deepest nesting of document symbols followed. */
const MAX_SYMBOL_DEPTH = 64;

/** The `file:` URI of a workspace-relative path. */
export function fileUri(root: string, relative: string): string {
  return pathToFileURL(path.join(root, ...relative.split('/'))).href;
}

/** The workspace-relative path (with `/`) a URI names, or null when it is not a file inside the workspace. */
export function workspacePathOf(root: string, uri: string): string | null {
  const absolute = absolutePathOf(uri);
  if (absolute === null) return null;
  const relative = path.relative(root, absolute);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join('/');
}

/** The absolute path of a `file:` URI, or null for any other URI or one that does not parse. */
export function absolutePathOf(uri: string): string | null {
  if (typeof uri !== 'string' || !uri.startsWith('file:')) return null;
  try {
    return path.resolve(fileURLToPath(uri));
  } catch {
    return null;
  }
}

export function toLspPosition(position: Position): lsp.Position {
  return { line: position.line - 1, character: position.column - 1 };
}

/** Loom's position of an LSP one, or undefined when it is not one. */
export function fromLspPosition(position: unknown): Position | undefined {
  if (!isObject(position)) return undefined;
  const { line, character } = position as Partial<lsp.Position>;
  if (!isCount(line) || !isCount(character)) return undefined;
  return { line: line + 1, column: character + 1 };
}

export function fromLspRange(range: unknown): CodeRange | undefined {
  if (!isObject(range)) return undefined;
  const start = fromLspPosition((range as lsp.Range).start);
  const end = fromLspPosition((range as lsp.Range).end);
  return start && end ? { start, end } : undefined;
}

export function toLspRange(range: CodeRange): lsp.Range {
  return { start: toLspPosition(range.start), end: toLspPosition(range.end) };
}

const SEVERITIES: Record<number, DiagnosticSeverity> = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };

/** A diagnostic, or undefined when the server sent something else. A missing severity is an error, as clients read it. */
export function fromLspDiagnostic(diagnostic: unknown): CodeDiagnostic | undefined {
  if (!isObject(diagnostic)) return undefined;
  const d = diagnostic as Partial<lsp.Diagnostic>;
  const range = fromLspRange(d.range);
  if (!range || typeof d.message !== 'string') return undefined;
  const result: CodeDiagnostic = { range, severity: SEVERITIES[d.severity as number] ?? 'error', message: d.message.slice(0, MAX_TEXT) };
  if (typeof d.source === 'string') result.source = d.source.slice(0, 200);
  if (typeof d.code === 'string' || typeof d.code === 'number') result.code = String(d.code).slice(0, 200);
  if (Array.isArray(d.tags)) {
    const tags = d.tags.flatMap((tag) => (tag === 1 ? ['unnecessary' as const] : tag === 2 ? ['deprecated' as const] : []));
    if (tags.length > 0) result.tags = [...new Set(tags)];
  }
  return result;
}

/**
 * The locations of a definition or references answer: a Location, a list of them, or a list of
 * LocationLinks (the target's selection range is where the name is). Null answers none.
 */
export function fromLspLocations(root: string, answer: unknown): CodeLocation[] {
  const entries = Array.isArray(answer) ? answer.slice(0, MAX_ENTRIES) : answer ? [answer] : [];
  const locations: CodeLocation[] = [];
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    const link = entry as Partial<lsp.LocationLink>;
    const plain = entry as Partial<lsp.Location>;
    const uri = typeof link.targetUri === 'string' ? link.targetUri : plain.uri;
    const range = fromLspRange(typeof link.targetUri === 'string' ? (link.targetSelectionRange ?? link.targetRange) : plain.range);
    if (typeof uri !== 'string' || !range) continue;
    locations.push({ path: workspacePathOf(root, uri), uri, range });
  }
  return locations;
}

/** A hover answer as Markdown; null when the server has nothing to say. */
export function fromLspHover(answer: unknown): HoverAnswer | null {
  if (!isObject(answer)) return null;
  const hover = answer as Partial<lsp.Hover>;
  const parts = (Array.isArray(hover.contents) ? hover.contents : [hover.contents]).map(markdownOf).filter((part) => part !== '');
  if (parts.length === 0) return null;
  const result: HoverAnswer = { markdown: parts.join('\n\n---\n\n').slice(0, MAX_TEXT) };
  const range = fromLspRange(hover.range);
  if (range) result.range = range;
  return result;
}

/** MarkupContent, a MarkedString (plain, or `{language, value}` code) as Markdown. */
function markdownOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!isObject(content)) return '';
  const { kind, value, language } = content as { kind?: unknown; value?: unknown; language?: unknown };
  if (typeof value !== 'string') return '';
  if (typeof language === 'string') return `\`\`\`${language.replace(/[^\w+#.-]/g, '')}\n${value}\n\`\`\``;
  // Plain text shown as Markdown would read its * and _ as emphasis: keep it as a block.
  if (kind === 'plaintext') return value.trim() === '' ? '' : `\`\`\`\n${value.replace(/```/g, '` ` `')}\n\`\`\``;
  return value;
}

const SYMBOL_KINDS = [
  'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface', 'function', 'variable',
  'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enumMember', 'struct', 'event', 'operator', 'typeParameter',
]; // prettier-ignore

/** LSP's symbol kind (1-based) in words; `symbol` for a kind this version does not know. */
export function symbolKindName(kind: unknown): string {
  return (typeof kind === 'number' && SYMBOL_KINDS[kind - 1]) || 'symbol';
}

/**
 * The symbols of a document symbols answer: DocumentSymbols (a tree), or SymbolInformation (a
 * flat list, each with its location; such a list has no nesting to keep).
 */
export function fromLspSymbols(answer: unknown): CodeSymbol[] {
  if (!Array.isArray(answer)) return [];
  const budget = { left: MAX_ENTRIES };
  return symbolsOf(answer, 0, budget);
}

function symbolsOf(entries: unknown[], depth: number, budget: { left: number }): CodeSymbol[] {
  const symbols: CodeSymbol[] = [];
  for (const entry of entries) {
    if (budget.left <= 0) break;
    if (!isObject(entry)) continue;
    const symbol = entry as Partial<lsp.DocumentSymbol> & Partial<lsp.SymbolInformation>;
    if (typeof symbol.name !== 'string') continue;
    const range = fromLspRange(symbol.range ?? symbol.location?.range);
    if (!range) continue;
    budget.left--;
    const children = Array.isArray(symbol.children) && depth < MAX_SYMBOL_DEPTH ? symbolsOf(symbol.children, depth + 1, budget) : [];
    const result: CodeSymbol = {
      name: symbol.name.slice(0, 1000),
      kind: symbolKindName(symbol.kind),
      range,
      selectionRange: fromLspRange(symbol.selectionRange) ?? range,
      children,
    };
    if (typeof symbol.detail === 'string' && symbol.detail !== '') result.detail = symbol.detail.slice(0, 1000);
    symbols.push(result);
  }
  return symbols;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** A line or character count: a whole number from 0 within what a document can hold. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** 31;
}
