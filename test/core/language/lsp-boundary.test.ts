// The boundary between LSP and Loom: 0-based positions and file URIs in, 1-based positions and
// workspace paths out; whatever a server sends that is not what LSP says is dropped; a workspace
// edit is applied exactly or refused whole.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DiagnosticsStore, MAX_DIAGNOSTICS_PER_FILE } from '../../../src/core/language/diagnostics.ts';
import {
  fileUri,
  fromLspDiagnostic,
  fromLspHover,
  fromLspLocations,
  fromLspSymbols,
  toLspPosition,
  workspacePathOf,
} from '../../../src/core/language/lsp-convert.ts';
import type { FileDiagnostics } from '../../../src/core/language/types.ts';
import { applyTextEdits, textEditsOf } from '../../../src/core/language/workspace-edit.ts';
import { LoomError } from '../../../src/core/errors.ts';

const root = path.resolve('/work/app');
const range = (line: number, character: number, endCharacter: number) => ({ start: { line, character }, end: { line, character: endCharacter } });

describe('LSP to Loom', () => {
  it('converts positions from 0-based to 1-based and back', () => {
    assert.deepEqual(toLspPosition({ line: 1, column: 1 }), { line: 0, character: 0 });
    const [location] = fromLspLocations(root, { uri: fileUri(root, 'src/a.ts'), range: range(4, 2, 7) });
    assert.deepEqual(location, { path: 'src/a.ts', uri: fileUri(root, 'src/a.ts'), range: { start: { line: 5, column: 3 }, end: { line: 5, column: 8 } } });
  });

  it('names files by workspace path, and those outside the workspace by URI only', () => {
    assert.equal(workspacePathOf(root, fileUri(root, 'src/a b/é.ts')), 'src/a b/é.ts');
    assert.equal(workspacePathOf(root, 'file:///usr/lib/node_modules/typescript/lib/lib.d.ts'), null);
    assert.equal(workspacePathOf(root, `${fileUri(root, '')}/../etc/passwd`), null);
    assert.equal(workspacePathOf(root, 'untitled:Untitled-1'), null);
    assert.equal(workspacePathOf(root, fileUri(root, '')), null);
    const links = fromLspLocations(root, [
      { targetUri: 'file:///usr/lib/lib.d.ts', targetRange: range(0, 0, 9), targetSelectionRange: range(0, 4, 9) },
      { targetUri: fileUri(root, 'b.ts'), targetRange: range(1, 0, 20), targetSelectionRange: range(1, 9, 12) },
    ]);
    assert.deepEqual(
      links.map((link) => [link.path, link.range.start.column]),
      [
        [null, 5],
        ['b.ts', 10],
      ],
    );
  });

  it('drops what is not LSP: negative or fractional positions, missing fields, other types', () => {
    const good = { range: range(0, 0, 1), message: 'x' };
    for (const bad of [
      null,
      7,
      'x',
      [],
      { message: 'x' },
      { range: range(0, 0, 1) },
      { range: range(-1, 0, 1), message: 'x' },
      { range: range(0.5, 0, 1), message: 'x' },
    ]) {
      assert.equal(fromLspDiagnostic(bad), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(fromLspDiagnostic(good), { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } }, severity: 'error', message: 'x' });
    assert.deepEqual(fromLspDiagnostic({ ...good, severity: 4, code: 2345, source: 'ts', tags: [1, 2, 9, 1] }), {
      range: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } },
      severity: 'hint',
      message: 'x',
      code: '2345',
      source: 'ts',
      tags: ['unnecessary', 'deprecated'],
    });
    assert.deepEqual(fromLspLocations(root, [null, { uri: 3 }, { uri: fileUri(root, 'a.ts') }, 'x']), []);
    assert.deepEqual(fromLspLocations(root, null), []);
  });

  it('reads hover in its three shapes as Markdown', () => {
    assert.equal(fromLspHover({ contents: { kind: 'markdown', value: '**x**' } })!.markdown, '**x**');
    assert.equal(fromLspHover({ contents: { kind: 'plaintext', value: 'a*b*c' } })!.markdown, '```\na*b*c\n```');
    assert.equal(fromLspHover({ contents: [{ language: 'ts', value: 'let x: number' }, 'doc'] })!.markdown, '```ts\nlet x: number\n```\n\n---\n\ndoc');
    assert.equal(fromLspHover({ contents: [] }), null);
    assert.equal(fromLspHover(null), null);
  });

  it('reads symbols as a tree, or a flat list, bounded in depth', () => {
    const tree = [
      {
        name: 'A',
        kind: 5,
        range: range(0, 0, 9),
        selectionRange: range(0, 6, 7),
        children: [{ name: 'm', kind: 6, range: range(1, 2, 9), selectionRange: range(1, 2, 3) }],
      },
    ];
    assert.deepEqual(
      fromLspSymbols(tree).map((s) => [s.name, s.kind, s.children.map((c) => [c.name, c.kind])]),
      [['A', 'class', [['m', 'method']]]],
    );
    const flat = [{ name: 'f', kind: 12, location: { uri: fileUri(root, 'a.ts'), range: range(2, 0, 5) } }];
    assert.deepEqual(fromLspSymbols(flat)[0]!.range, { start: { line: 3, column: 1 }, end: { line: 3, column: 6 } });
    // A server nesting symbols ten thousand deep costs no stack overflow.
    let deep: Record<string, unknown> = { name: 'leaf', kind: 13, range: range(0, 0, 1) };
    for (let i = 0; i < 10_000; i++) deep = { name: `n${i}`, kind: 2, range: range(0, 0, 1), children: [deep] };
    let depth = 0;
    for (let symbols = fromLspSymbols([deep]); symbols.length > 0; symbols = symbols[0]!.children) depth++;
    assert.equal(depth, 65);
  });
});

describe('workspace edits', () => {
  it('applies edits in any order, inserts at one place in their order', () => {
    const edits = [
      { range: { start: { line: 2, column: 1 }, end: { line: 2, column: 4 } }, newText: 'baz' },
      { range: { start: { line: 1, column: 5 }, end: { line: 1, column: 8 } }, newText: 'bar' },
      { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: '1' },
      { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: '2' },
    ];
    assert.equal(applyTextEdits('let foo;\r\nfoo = 1;\n', edits), '12let bar;\r\nbaz = 1;\n');
  });

  it('refuses overlapping edits and positions past a line or the text', () => {
    const at = (line: number, column: number, endColumn: number) => ({ start: { line, column }, end: { line, column: endColumn } });
    const refused = (edits: { range: ReturnType<typeof at>; newText: string }[]) =>
      assert.throws(
        () => applyTextEdits('abc\ndef\n', edits),
        (error: LoomError) => error.code === 'out_of_range',
      );
    refused([
      { range: at(1, 1, 3), newText: 'x' },
      { range: at(1, 2, 4), newText: 'y' },
    ]);
    refused([{ range: at(1, 5, 6), newText: 'x' }]);
    refused([{ range: at(4, 1, 1), newText: 'x' }]);
    assert.equal(applyTextEdits('abc\ndef\n', [{ range: at(3, 1, 1), newText: 'end' }]), 'abc\ndef\nend');
  });

  it('takes changes and versioned document changes, and refuses file operations and files outside the workspace', () => {
    const edit = { range: range(0, 0, 1), newText: 'x' };
    const changes = textEditsOf(root, { changes: { [fileUri(root, 'a.ts')]: [edit] } });
    assert.deepEqual([...changes.keys()], ['a.ts']);
    const documentChanges = textEditsOf(root, { documentChanges: [{ textDocument: { uri: fileUri(root, 'b.ts'), version: 4 }, edits: [edit] }] });
    assert.equal(documentChanges.get('b.ts')!.version, 4);
    assert.throws(
      () => textEditsOf(root, { documentChanges: [{ kind: 'rename', oldUri: fileUri(root, 'a.ts'), newUri: fileUri(root, 'c.ts') }] }),
      (error: LoomError) => error.code === 'bad_request' && /would rename a file/.test(error.message),
    );
    assert.throws(
      () => textEditsOf(root, { changes: { 'file:///etc/passwd': [edit] } }),
      (error: LoomError) => error.code === 'forbidden_path',
    );
    assert.throws(
      () => textEditsOf(root, { changes: { [fileUri(root, 'a.ts')]: [{ newText: 'x' }] } }),
      (error: LoomError) => error.code === 'language_server_failed',
    );
  });
});

describe('DiagnosticsStore', () => {
  it('replaces a file’s report, tells only changes, and keeps a bounded number per file', () => {
    const told: FileDiagnostics[] = [];
    const store = new DiagnosticsStore((report) => told.push(report));
    const diagnostic = (line: number, severity: 'error' | 'warning' = 'error') => ({
      range: { start: { line, column: 1 }, end: { line, column: 2 } },
      severity,
      message: `at ${line}`,
    });
    store.report('ts', 'a.ts', [diagnostic(3, 'warning'), diagnostic(2)]);
    store.report('ts', 'a.ts', [diagnostic(3, 'warning'), diagnostic(2)]);
    assert.equal(told.length, 1, 'the same report again is not told');
    assert.deepEqual(
      store.file('a.ts').diagnostics.map((d) => d.message),
      ['at 2', 'at 3'],
    );
    store.report('ts', 'b.ts', [diagnostic(1, 'warning')]);
    assert.deepEqual(
      store.problems().files.map((f) => f.path),
      ['a.ts', 'b.ts'],
    );
    assert.deepEqual(store.problems().counts, { error: 1, warning: 2, information: 0, hint: 0 });
    store.report('ts', 'a.ts', []);
    assert.deepEqual(store.file('a.ts').diagnostics, []);
    assert.deepEqual(
      store.problems().files.map((f) => f.path),
      ['b.ts'],
    );
    store.report(
      'ts',
      'c.ts',
      Array.from({ length: MAX_DIAGNOSTICS_PER_FILE + 7 }, (_, i) => diagnostic(i + 1)),
      3,
    );
    assert.equal(store.file('c.ts').diagnostics.length, MAX_DIAGNOSTICS_PER_FILE);
    assert.equal(store.file('c.ts').omitted, 10);
  });
});
