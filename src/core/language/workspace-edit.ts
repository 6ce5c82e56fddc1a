// A language server's workspace edit (a rename's), in Loom's terms: text edits per
// workspace-relative path, applied to a text to preview them as a diff. Applying them to the
// workspace is the service's (through the editor's documents); this file only computes.
import type * as lsp from 'vscode-languageserver-protocol';
import { LoomError } from '../errors.ts';
import { indexLines } from '../text/line-index.ts';
import { unifiedDiff } from '../text/diff.ts';
import { fromLspRange, MAX_ENTRIES, workspacePathOf } from './lsp-convert.ts';
import type { CodeRange, EditBase, FileEditPreview, Position, TextEdit } from './types.ts';

/** Most files one workspace edit may touch, and most edits in all. */
const MAX_FILES = 1000;

/** The text edits of one file, and the LSP version of the document they were made against (when the server said). */
export interface FileTextEdits {
  edits: TextEdit[];
  version?: number | null;
}

/**
 * The text edits of a workspace edit, by workspace-relative path. Refuses (LoomError) what Loom
 * does not apply: creating, renaming or deleting files, and edits of files outside the
 * workspace; a malformed edit is refused whole rather than applied in part.
 *
 * @example
 *   textEditsOf('/work/app', { changes: { 'file:///work/app/a.ts': [{ range, newText: 'total' }] } });
 *   // Map { 'a.ts' => { edits: [{ range: {start: {line: 1, column: 7}, …}, newText: 'total' }] } }
 */
export function textEditsOf(root: string, edit: unknown): Map<string, FileTextEdits> {
  const files = new Map<string, FileTextEdits>();
  if (typeof edit !== 'object' || edit === null) return files;
  const { changes, documentChanges } = edit as Partial<lsp.WorkspaceEdit>;
  let count = 0;
  const add = (uri: unknown, edits: unknown, version?: number | null) => {
    if (typeof uri !== 'string' || !Array.isArray(edits)) throw malformed('a file edit without a URI or edits');
    const path = workspacePathOf(root, uri);
    if (path === null) throw new LoomError('forbidden_path', `The edit changes ${uri}, which is outside the workspace; nothing was changed.`);
    const entry = files.get(path) ?? { edits: [] };
    if (version !== undefined) entry.version = version;
    for (const raw of edits) {
      const range = fromLspRange((raw as lsp.TextEdit | undefined)?.range);
      const newText = (raw as lsp.TextEdit | undefined)?.newText;
      if (!range || typeof newText !== 'string') throw malformed('a text edit without a range or text');
      entry.edits.push({ range, newText });
      if (++count > MAX_ENTRIES) throw malformed(`more than ${MAX_ENTRIES} text edits`);
    }
    files.set(path, entry);
    if (files.size > MAX_FILES) throw malformed(`more than ${MAX_FILES} files`);
  };
  if (Array.isArray(documentChanges)) {
    for (const change of documentChanges) {
      if (typeof change === 'object' && change !== null && 'kind' in change) {
        throw new LoomError(
          'bad_request',
          `The edit would ${String((change as { kind: unknown }).kind)} a file; Loom applies text edits only, so nothing was changed.`,
        );
      }
      const documentEdit = change as Partial<lsp.TextDocumentEdit>;
      const version = documentEdit.textDocument?.version;
      add(documentEdit.textDocument?.uri, documentEdit.edits, typeof version === 'number' ? version : null);
    }
  } else if (typeof changes === 'object' && changes !== null) {
    for (const [uri, edits] of Object.entries(changes)) add(uri, edits);
  }
  return files;
}

function malformed(what: string): LoomError {
  return new LoomError('language_server_failed', `The language server answered with a workspace edit Loom cannot apply (${what}); nothing was changed.`);
}

/**
 * `text` with `edits` applied. The ranges are positions in `text` as it is; they may come in any
 * order but must not overlap (LSP's rule). Throws LoomError out_of_range otherwise.
 *
 * @example
 *   applyTextEdits('let a = a + 1;\n', [
 *     { range: { start: { line: 1, column: 5 }, end: { line: 1, column: 6 } }, newText: 'b' },
 *     { range: { start: { line: 1, column: 9 }, end: { line: 1, column: 10 } }, newText: 'b' },
 *   ]); // 'let b = b + 1;\n'
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const spans = offsetsOf(text, edits);
  const parts: string[] = [];
  let at = 0;
  for (const span of spans) {
    parts.push(text.slice(at, span.start), span.newText);
    at = span.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** The edits as offsets into `text`, in order, checked not to overlap. */
export function offsetsOf(text: string, edits: readonly TextEdit[]): { start: number; end: number; newText: string }[] {
  const { lineStarts } = indexLines(text);
  const spans = edits.map((edit, index) => ({ ...offsetRange(text, lineStarts, edit.range), newText: edit.newText, index }));
  // Stable: edits inserting at the same place keep their order, as LSP says.
  spans.sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) throw new LoomError('out_of_range', 'Two edits of the workspace edit overlap; nothing was changed.');
  }
  return spans.map(({ start, end, newText }) => ({ start, end, newText }));
}

function offsetRange(text: string, lineStarts: Uint32Array, range: CodeRange): { start: number; end: number } {
  const start = offsetOf(text, lineStarts, range.start);
  const end = offsetOf(text, lineStarts, range.end);
  if (end < start) throw new LoomError('out_of_range', 'An edit of the workspace edit ends before it starts; nothing was changed.');
  return { start, end };
}

/** The offset of a 1-based position in `text`; a column past its line's end is refused. */
function offsetOf(text: string, lineStarts: Uint32Array, position: Position): number {
  const line = position.line - 1;
  if (line < 0 || line > lineStarts.length) {
    throw new LoomError('out_of_range', `An edit names line ${position.line}, outside 1..${lineStarts.length + 1}; nothing was changed.`);
  }
  const start = line === 0 ? 0 : lineStarts[line - 1]!;
  const end = line < lineStarts.length ? contentEnd(text, lineStarts[line]!) : text.length;
  const offset = start + position.column - 1;
  if (position.column < 1 || offset > end)
    throw new LoomError('out_of_range', `An edit names column ${position.column} of line ${position.line}, past its end; nothing was changed.`);
  return offset;
}

/** Where a line's content ends, given where the next line starts (before its "\n", "\r\n" or "\r"). */
function contentEnd(text: string, nextStart: number): number {
  return text.charCodeAt(nextStart - 1) === 10 && text.charCodeAt(nextStart - 2) === 13 ? nextStart - 2 : nextStart - 1;
}

/** One file of a preview: its edits against `text` and the diff they make. */
export function previewFile(path: string, base: EditBase, text: string, edits: TextEdit[]): FileEditPreview {
  return { path, base, edits, diff: unifiedDiff(text, applyTextEdits(text, edits), { from: path, to: path }) };
}
