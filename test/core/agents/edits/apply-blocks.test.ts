// An answer's blocks applied together: in order, against the content the blocks before left,
// one report per block, and the words the model is told.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, formatEditReport, parseEditBlocks, type EditBlock } from '../../../../src/core/agents/edits/index.ts';

const block = (path: string, search: string, replace: string): EditBlock => ({ path, search, replace });

describe('applyEdits', () => {
  it('applies several blocks of one file in order, each against the content the last one left', () => {
    const files = new Map([['src/a.ts', 'function f() {\n  return 1;\n}\n']]);
    const asked: string[] = [];
    const { changes, reports } = applyEdits(
      [
        block('src/a.ts', 'function f() {\n', 'function g() {\n'),
        // Finds what the first block wrote.
        block('src/a.ts', 'function g() {\n  return 1;\n', 'function g() {\n  return 2;\n'),
        block('src/a.ts', '}\n', '}\n\nexport { g };\n'),
      ],
      (path) => {
        asked.push(path);
        return files.get(path) ?? null;
      },
    );
    assert.deepEqual(asked, ['src/a.ts']);
    assert.deepEqual(changes, [{ path: 'src/a.ts', before: 'function f() {\n  return 1;\n}\n', after: 'function g() {\n  return 2;\n}\n\nexport { g };\n' }]);
    assert.deepEqual(
      reports.map(({ number, result }) => [number, result.ok && result.lines]),
      [
        [1, { start: 1, end: 1 }],
        [2, { start: 1, end: 2 }],
        [3, { start: 3, end: 5 }],
      ],
    );
  });

  it('goes on after a refused block, changing only the files blocks applied to', () => {
    const files = new Map([
      ['a.ts', 'x\ny\nx\n'],
      ['b.ts', 'one\n'],
      ['c.ts', 'keep\n'],
    ]);
    const { changes, reports } = applyEdits(
      [
        block('a.ts', 'x\n', 'z\n'),
        block('b.ts', 'one\n', 'two\n'),
        block('c.ts', 'gone\n', 'x\n'),
        block('new.ts', '', 'created\n'),
        block('missing.ts', 'a\n', 'b\n'),
      ],
      (path) => files.get(path) ?? null,
    );
    assert.deepEqual(changes, [
      { path: 'b.ts', before: 'one\n', after: 'two\n' },
      { path: 'new.ts', before: null, after: 'created\n' },
    ]);
    assert.deepEqual(
      reports.map(({ number, path, result }) => [number, path, result.ok ? 'applied' : result.reason]),
      [
        [1, 'a.ts', 'ambiguous'],
        [2, 'b.ts', 'applied'],
        [3, 'c.ts', 'not_found'],
        [4, 'new.ts', 'applied'],
        [5, 'missing.ts', 'no_file'],
      ],
    );
  });

  it('reports a file created empty as a change', () => {
    const { changes } = applyEdits([block('empty.py', '', '')], () => null);
    assert.deepEqual(changes, [{ path: 'empty.py', before: null, after: '' }]);
  });
});

describe('formatEditReport', () => {
  it('tells the model what was applied where, what was not and why, and what to send again', () => {
    const answer = [
      'src/a.ts',
      '<<<<<<< SEARCH',
      '  return 1;',
      '=======',
      '  return 2;',
      '>>>>>>> REPLACE',
      '<<<<<<< SEARCH',
      '}',
      '=======',
      '};',
      '>>>>>>> REPLACE',
      'src/b.ts',
      '<<<<<<< SEARCH',
      '=======',
      'export {};',
      '>>>>>>> REPLACE',
      'oops',
      '=======',
      '>>>>>>> REPLACE',
      '',
    ].join('\n');
    const { blocks, problems } = parseEditBlocks(answer);
    const { reports } = applyEdits(blocks, (path) => (path === 'src/a.ts' ? 'function f() {\n    return 1;\n}\nfunction g() {\n}\n' : null));
    assert.equal(
      formatEditReport(problems, reports),
      [
        'Not applied: Line 19: ">>>>>>> REPLACE" without a "<<<<<<< SEARCH" before it. Each block starts with "<<<<<<< SEARCH" on its own line, after the file\'s path.',
        "Block 1 (src/a.ts): applied; it is now line 2 (SEARCH differed from the file in indentation; the file's whitespace was kept).",
        'Block 2 (src/a.ts): not applied. SEARCH matches 2 places in the file (lines 3 and 5); indentation and blank lines do not tell places apart. Add lines of context above or below, taken from the file, that occur only at the place you mean.',
        'Block 3 (src/b.ts): created the file.',
        'The blocks reported applied are in the files now: send again only the others, against the files as they are now.',
      ].join('\n'),
    );
  });

  it('says when a block changed nothing or removed lines', () => {
    const { reports } = applyEdits([block('a.ts', 'x\n', 'x\n'), block('a.ts', 'y\nz\n', '')], () => 'x\ny\nz\n');
    assert.equal(
      formatEditReport([], reports),
      ['Block 1 (a.ts): matched, but SEARCH and REPLACE give the same content: nothing changed.', 'Block 2 (a.ts): applied; it removed lines 2–3.'].join('\n'),
    );
  });
});
