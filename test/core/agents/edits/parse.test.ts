// Reading blocks out of a model's answer: every accepted variant, every malformed one. A
// malformed block is a problem with its number, its line and what was expected, never an
// exception, and the blocks around it are still read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { editFromArguments, parseEditBlocks } from '../../../../src/core/agents/edits/index.ts';

/** The answer's lines joined; a template literal would hide the fences' backticks. */
const answer = (...lines: string[]): string => lines.join('\n') + '\n';
const F = '```';

/** Only what a block says, for short assertions. */
const blocks = (text: string, options?: { truncated?: boolean }) =>
  parseEditBlocks(text, options).blocks.map(({ path, search, replace }) => ({ path, search, replace }));

describe('parseEditBlocks: accepted variants', () => {
  it('reads a block with its path on the line before, without a fence', () => {
    const parsed = parseEditBlocks(answer('src/a.ts', '<<<<<<< SEARCH', 'const a = 1;', '=======', 'const a = 2;', '>>>>>>> REPLACE'));
    assert.deepEqual(parsed, {
      blocks: [{ path: 'src/a.ts', search: 'const a = 1;\n', replace: 'const a = 2;\n', origin: { number: 1, line: 2 } }],
      problems: [],
    });
  });

  it('reads the path before the fence, after it, and in its info string', () => {
    const expected = [{ path: 'src/a.ts', search: 'x\n', replace: 'y\n' }];
    const body = ['<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE', F];
    assert.deepEqual(blocks(answer('src/a.ts', F + 'ts', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'ts', 'src/a.ts', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'ts src/a.ts', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'ts:src/a.ts', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'src/a.ts', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'ts title="src/a.ts"', ...body)), expected);
    assert.deepEqual(blocks(answer(F + 'typescript filename=src/a.ts', ...body)), expected);
    assert.deepEqual(blocks(answer('src/a.ts', '', F + 'ts', '', ...body)), expected, 'blank lines around the fence');
    assert.deepEqual(blocks(answer('src/a.ts', '~~~', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE', '~~~')), expected, 'a tilde fence');
  });

  it('reads a path in backticks, bold, a heading, a list item, after "File:", with a colon, with ./', () => {
    const body = ['<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'];
    for (const line of [
      '`src/a.ts`',
      '**src/a.ts**',
      '**`src/a.ts`**',
      '### src/a.ts',
      '- `src/a.ts`',
      'File: src/a.ts',
      'Filename: `src/a.ts`',
      'src/a.ts:',
      '`src/a.ts`:',
      './src/a.ts',
      '"src/a.ts"',
      'src/a.ts (new file)',
      '`src/a.ts` (updated)',
    ]) {
      assert.deepEqual(
        blocks(answer(line, ...body)).map((block) => block.path),
        ['src/a.ts'],
        line,
      );
    }
    assert.deepEqual(blocks(answer('Makefile', ...body))[0]?.path, 'Makefile');
    assert.deepEqual(blocks(answer('.gitignore', ...body))[0]?.path, '.gitignore');
    assert.deepEqual(blocks(answer('app/routes/[slug]/+page.svelte', ...body))[0]?.path, 'app/routes/[slug]/+page.svelte');
  });

  it('reads several blocks with prose around them, the path repeated or left out after the first', () => {
    const text = answer(
      'I will rename the function and its call.',
      '',
      'src/a.ts',
      F + 'ts',
      '<<<<<<< SEARCH',
      'function f() {',
      '=======',
      'function g() {',
      '>>>>>>> REPLACE',
      F,
      '',
      F + 'ts',
      '<<<<<<< SEARCH',
      'f();',
      '=======',
      'g();',
      '>>>>>>> REPLACE',
      F,
      '',
      'Then the test, which calls it too:',
      '',
      'test/a.test.ts',
      F + 'ts',
      '<<<<<<< SEARCH',
      'f();',
      '=======',
      'g();',
      '>>>>>>> REPLACE',
      '<<<<<<< SEARCH',
      "import { f } from '../src/a.ts';",
      '=======',
      "import { g } from '../src/a.ts';",
      '>>>>>>> REPLACE',
      F,
      '',
      'And once more in the first file, where it is exported:',
      F,
      '<<<<<<< SEARCH',
      'export { f };',
      '=======',
      'export { g };',
      '>>>>>>> REPLACE',
      F,
      'That is all.',
    );
    const parsed = parseEditBlocks(text);
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(
      parsed.blocks.map(({ path, origin }) => [path, origin]),
      [
        ['src/a.ts', { number: 1, line: 5 }],
        ['src/a.ts', { number: 2, line: 13 }],
        ['test/a.test.ts', { number: 3, line: 24 }],
        ['test/a.test.ts', { number: 4, line: 29 }],
        // Prose in between that names no file: the previous block's path.
        ['test/a.test.ts', { number: 5, line: 38 }],
      ],
    );
  });

  it('takes 5 to 9 marker characters, any case, spaces around, and CRLF answers', () => {
    const expected = [{ path: 'a.py', search: 'x\n', replace: 'y\n' }];
    assert.deepEqual(blocks(answer('a.py', '<<<<< SEARCH', 'x', '=====', 'y', '>>>>> REPLACE')), expected);
    assert.deepEqual(blocks(answer('a.py', '<<<<<<<<< SEARCH', 'x', '=========', 'y', '>>>>>>>>> REPLACE')), expected);
    assert.deepEqual(blocks(answer('a.py', '<<<<<<< SEARCH  ', 'x', '=======\t', 'y', '>>>>>>> REPLACE ')), expected);
    assert.deepEqual(blocks(answer('a.py', '  <<<<<<< search', 'x', '  =======', 'y', '  >>>>>>> Replace')), expected);
    assert.deepEqual(blocks(answer('a.py', '<<<<<<<SEARCH', 'x', '=======', 'y', '>>>>>>>REPLACE')), expected);
    assert.deepEqual(blocks(['a.py', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE', ''].join('\r\n')), expected);
  });

  it('accepts a last block without >>>>>>> REPLACE at the very end of the answer', () => {
    const expected = [{ path: 'a.ts', search: 'x\n', replace: 'y\n' }];
    assert.deepEqual(blocks('a.ts\n<<<<<<< SEARCH\nx\n=======\ny'), expected);
    assert.deepEqual(blocks('a.ts\n<<<<<<< SEARCH\nx\n=======\ny\n'), expected);
    // Blank lines at the end count when SEARCH ends with as many: they copy its context.
    assert.deepEqual(blocks('a.ts\n<<<<<<< SEARCH\nx\n\n=======\ny\n\n'), [{ path: 'a.ts', search: 'x\n\n', replace: 'y\n\n' }]);
    // In a fence: the new lines end at the fence that closes it, the prose after is not taken.
    assert.deepEqual(blocks(answer('a.ts', F, '<<<<<<< SEARCH', 'x', '=======', 'y', F, '', 'Done.')), expected);
    // The last closing fence, since the file's own lines may hold fences (a markdown file).
    assert.deepEqual(blocks(answer('README.md', '````md', '<<<<<<< SEARCH', 'x', '=======', F + 'sh', 'npm test', F, '````')), [
      { path: 'README.md', search: 'x\n', replace: F + 'sh\nnpm test\n' + F + '\n' },
    ]);
  });

  it('reads an empty SEARCH (a new file), an empty REPLACE (a deletion) and blank lines as lines', () => {
    assert.deepEqual(blocks(answer('new.ts', '<<<<<<< SEARCH', '=======', 'export {};', '>>>>>>> REPLACE')), [
      { path: 'new.ts', search: '', replace: 'export {};\n' },
    ]);
    assert.deepEqual(blocks(answer('a.ts', '<<<<<<< SEARCH', 'x', '=======', '>>>>>>> REPLACE')), [{ path: 'a.ts', search: 'x\n', replace: '' }]);
    assert.deepEqual(blocks(answer('a.ts', '<<<<<<< SEARCH', 'x', '', '=======', '', '>>>>>>> REPLACE')), [{ path: 'a.ts', search: 'x\n\n', replace: '\n' }]);
  });

  it("keeps a file's fence lines, marker-like words and headings inside a block as its lines", () => {
    const parsed = parseEditBlocks(
      answer(
        'docs/a.md',
        '<<<<<<< SEARCH',
        '# Title',
        F + 'sh',
        'a <<< b',
        F,
        '=======',
        '# Title',
        '',
        '~~~',
        '<<<<<<< HEAD is fine here',
        '~~~',
        '>>>>>>> REPLACE',
      ),
    );
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.blocks[0]?.search, '# Title\n' + F + 'sh\na <<< b\n' + F + '\n');
    assert.deepEqual(parsed.blocks[0]?.replace, '# Title\n\n~~~\n<<<<<<< HEAD is fine here\n~~~\n');
  });
});

describe('parseEditBlocks: malformed blocks', () => {
  const codes = (text: string, options?: { truncated?: boolean }) =>
    parseEditBlocks(text, options).problems.map(({ code, number, line }) => ({ code, number, line }));

  it('reports a first block without a path, and names the file the prose mentions', () => {
    const parsed = parseEditBlocks(answer('Here is the fix:', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'));
    assert.deepEqual(parsed.blocks, []);
    assert.equal(parsed.problems.length, 1);
    assert.equal(parsed.problems[0]!.code, 'missing_path');
    assert.equal(parsed.problems[0]!.number, 1);
    assert.equal(parsed.problems[0]!.line, 2);
    assert.match(parsed.problems[0]!.message, /Block 1 \(line 2\) has no file path\. Write the file's path alone on the line before "<<<<<<< SEARCH"/);
    const named = parseEditBlocks(answer('In `src/b.ts` change:', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'));
    assert.match(named.problems[0]!.message, /names "src\/b\.ts", but not on a line of its own/);
  });

  it('does not give a block the previous path when the prose between names another file', () => {
    const parsed = parseEditBlocks(
      answer(
        'src/a.ts',
        '<<<<<<< SEARCH',
        'x',
        '=======',
        'y',
        '>>>>>>> REPLACE',
        '',
        'Now update src/b.ts to match:',
        '<<<<<<< SEARCH',
        'x',
        '=======',
        'y',
        '>>>>>>> REPLACE',
      ),
    );
    assert.equal(parsed.blocks.length, 1);
    assert.deepEqual(
      parsed.problems.map(({ code, number, line }) => ({ code, number, line })),
      [{ code: 'unclear_path', number: 2, line: 9 }],
    );
    assert.match(parsed.problems[0]!.message, /names "src\/b\.ts", so it may not be for "src\/a\.ts"/);
    // Naming the same file is fine.
    assert.equal(
      parseEditBlocks(
        answer(
          'src/a.ts',
          '<<<<<<< SEARCH',
          'x',
          '=======',
          'y',
          '>>>>>>> REPLACE',
          'Also in `src/a.ts`:',
          '<<<<<<< SEARCH',
          'x',
          '=======',
          'y',
          '>>>>>>> REPLACE',
        ),
      ).blocks.length,
      2,
    );
  });

  it('reports two different paths for one block', () => {
    assert.deepEqual(codes(answer('src/a.ts', F + 'ts src/b.ts', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE', F)), [
      { code: 'unclear_path', number: 1, line: 3 },
    ]);
  });

  it('reports a missing divider, a second divider, and reads the next block', () => {
    const text = answer(
      'a.ts',
      '<<<<<<< SEARCH',
      'x',
      'y',
      '>>>>>>> REPLACE',
      'b.md',
      '<<<<<<< SEARCH',
      'Title',
      '=======',
      '=======',
      'Title',
      '=====',
      '>>>>>>> REPLACE',
      'c.ts',
      '<<<<<<< SEARCH',
      'x',
      '=======',
      'y',
      '>>>>>>> REPLACE',
    );
    const parsed = parseEditBlocks(text);
    assert.deepEqual(
      parsed.problems.map(({ code, number, line }) => ({ code, number, line })),
      [
        { code: 'missing_divider', number: 1, line: 5 },
        { code: 'extra_divider', number: 2, line: 10 },
      ],
    );
    assert.match(
      parsed.problems[0]!.message,
      /Block 1 \(line 2\): ">>>>>>> REPLACE" at line 5 comes before any "=======". Expected the lines to find, then "=======", then the new lines, then ">>>>>>> REPLACE"\./,
    );
    assert.match(parsed.problems[1]!.message, /second "=======" at line 10 \(the first is at line 9\)/);
    assert.deepEqual(blocks(text), [{ path: 'c.ts', search: 'x\n', replace: 'y\n' }]);
  });

  it('reports a block left open before the next one, and still reads the next one', () => {
    const text = answer('a.ts', '<<<<<<< SEARCH', 'x', '=======', 'y', 'b.ts', '<<<<<<< SEARCH', 'p', '=======', 'q', '>>>>>>> REPLACE');
    assert.deepEqual(codes(text), [{ code: 'unterminated', number: 1, line: 7 }]);
    assert.match(
      parseEditBlocks(text).problems[0]!.message,
      /Block 1 \(line 2\) is not closed: the next "<<<<<<< SEARCH" comes at line 7, before its ">>>>>>> REPLACE"/,
    );
    assert.deepEqual(blocks(text), [{ path: 'b.ts', search: 'p\n', replace: 'q\n' }]);
  });

  it('reports a last block without >>>>>>> REPLACE that ends in blank lines SEARCH does not have', () => {
    // The answer's own blank lines, or new lines of the file? It cannot be told.
    for (const text of ['a.ts\n<<<<<<< SEARCH\nx\n=======\ny\n\n\n', answer('a.ts', F, '<<<<<<< SEARCH', 'x', '=======', 'y', '', F)]) {
      const parsed = parseEditBlocks(text);
      assert.deepEqual(parsed.blocks, []);
      assert.equal(parsed.problems[0]!.code, 'unterminated');
      assert.match(
        parsed.problems[0]!.message,
        /Block 1 \(line [23]\): the answer ends without its ">>>>>>> REPLACE", after blank lines: whether they belong to the new lines cannot be told/,
      );
    }
  });

  it('reports an answer that ends inside SEARCH, or that was cut off', () => {
    assert.deepEqual(codes('a.ts\n<<<<<<< SEARCH\nx\n'), [{ code: 'unterminated', number: 1, line: 4 }]);
    const cut = parseEditBlocks('a.ts\n<<<<<<< SEARCH\nx\n=======\ny', { truncated: true });
    assert.deepEqual(cut.blocks, []);
    assert.equal(cut.problems[0]!.code, 'unterminated');
    assert.match(cut.problems[0]!.message, /cut off before its ">>>>>>> REPLACE"; send this block again, complete/);
  });

  it('reports a REPLACE marker without a block (SEARCH marker forgotten)', () => {
    const text = answer('a.ts', 'x', '=======', 'y', '>>>>>>> REPLACE', 'b.ts', '<<<<<<< SEARCH', 'p', '=======', 'q', '>>>>>>> REPLACE');
    const parsed = parseEditBlocks(text);
    assert.deepEqual(
      parsed.problems.map(({ code, line }) => ({ code, line })),
      [{ code: 'stray_marker', line: 5 }],
    );
    assert.match(parsed.problems[0]!.message, /Line 5: ">>>>>>> REPLACE" without a "<<<<<<< SEARCH" before it/);
    assert.deepEqual(blocks(text), [{ path: 'b.ts', search: 'p\n', replace: 'q\n' }]);
  });

  it('reports lines that almost are markers, once per block', () => {
    for (const [lines, line] of [
      [['a.ts', '<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'], 2],
      [['a.ts', '<<<<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'], 2],
      [['a.ts', '<<<<<<< SEARCH a.ts', 'x', '=======', 'y', '>>>>>>> REPLACE'], 2],
      [['a.ts', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE:'], 6],
      [['a.ts', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>> REPLACE'], 6],
      [['a.ts', '<<<<<<< REPLACE', 'x', '=======', 'y', '>>>>>>> REPLACE'], 2],
    ] as const) {
      const parsed = parseEditBlocks(answer(...lines));
      assert.deepEqual(parsed.blocks, [], lines.join(' / '));
      assert.deepEqual(
        parsed.problems.map(({ code, number, line }) => ({ code, number, line })),
        [{ code: 'malformed_marker', number: 1, line }],
        lines.join(' / '),
      );
      assert.match(parsed.problems[0]!.message, /is not a marker; expected "(<<<<<<< SEARCH|>>>>>>> REPLACE)" alone on its line/);
    }
  });

  it('quotes the answer back in a few words: a marker line of 100,000 characters, a text naming 1,000 paths', () => {
    const long = parseEditBlocks(answer('a.ts', `<<<<<<< SEARCH ${'x'.repeat(100_000)}`, 'x', '=======', 'y', '>>>>>>> REPLACE'));
    assert.equal(long.problems[0]!.code, 'malformed_marker');
    assert.match(long.problems[0]!.message, /^Line 2: "<<<<<<< SEARCH x+…" \(100015 characters\) is not a marker/);
    assert.ok(long.problems[0]!.message.length < 300, `${long.problems[0]!.message.length} characters`);
    const named = Array.from({ length: 1000 }, (_, i) => `src/f${i}.ts`).join(' ');
    const unclear = parseEditBlocks(answer(`See ${named} and more.`, '', '<<<<<<< SEARCH', 'x', '=======', 'y', '>>>>>>> REPLACE'));
    assert.match(
      unclear.problems[0]!.message,
      /names "src\/f0\.ts", "src\/f1\.ts", "src\/f2\.ts", "src\/f3\.ts", "src\/f4\.ts" and 995 more, but not on a line of its own/,
    );
  });

  it('reads an answer without blocks as nothing, and never throws on any text', () => {
    assert.deepEqual(parseEditBlocks(''), { blocks: [], problems: [] });
    assert.deepEqual(parseEditBlocks('Nothing to change.\n=======\nA heading\n'), { blocks: [], problems: [] });
    const atoms = [
      '<<<<<<< SEARCH',
      '=======',
      '>>>>>>> REPLACE',
      '<<< SEARCH',
      F,
      F + 'ts a.ts',
      '~~~',
      'a.ts',
      '`b.ts`',
      'prose about c.ts',
      'x',
      '',
      '  y  ',
      '\r',
    ];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...atoms), fc.string()), { maxLength: 40 }), fc.boolean(), (parts, truncated) => {
        const text = parts.join('\n');
        const parsed = parseEditBlocks(text, { truncated });
        const lineCount = text.split('\n').length;
        for (const block of parsed.blocks) {
          assert.ok(block.path.length > 0);
          assert.ok(block.origin!.line >= 1 && block.origin!.line <= lineCount);
        }
        for (const problem of parsed.problems) {
          assert.ok(problem.message.length > 0);
          assert.ok(problem.line! >= 1 && problem.line! <= lineCount);
        }
      }),
      { seed: 11, numRuns: 500 },
    );
  });
});

describe('editFromArguments', () => {
  it('takes {path, search, replace} as they are, markers and all', () => {
    assert.deepEqual(editFromArguments({ path: './src/a.ts', search: '<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n', replace: 'x\n' }), {
      block: { path: 'src/a.ts', search: '<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n', replace: 'x\n' },
    });
    assert.deepEqual(editFromArguments({ path: 'new file.md', search: '', replace: '# New\n' }), {
      block: { path: 'new file.md', search: '', replace: '# New\n' },
    });
  });

  it('refuses what is not three strings, an empty or control-character path, and a whole block pasted into search', () => {
    const refused = (args: unknown) => {
      const result = editFromArguments(args);
      assert.ok('problem' in result, JSON.stringify(args));
      return result.problem;
    };
    assert.equal(refused(null).code, 'invalid_arguments');
    assert.equal(refused([1]).code, 'invalid_arguments');
    assert.equal(refused('a.ts').code, 'invalid_arguments');
    assert.match(refused({ path: 'a.ts', search: 'x' }).message, /"replace" must be a string \(empty to delete the lines\)/);
    assert.match(refused({ path: 'a.ts', replace: 'x' }).message, /"search" must be a string \(empty to create a new file\)/);
    assert.match(refused({ path: 3, search: '', replace: '' }).message, /"path" must be a string/);
    assert.match(refused({ path: '  ', search: '', replace: '' }).message, /"path" is empty/);
    assert.equal(refused({ path: 'a\nb.ts', search: '', replace: '' }).code, 'invalid_path');
    assert.equal(refused({ path: 'a'.repeat(1025), search: '', replace: '' }).code, 'invalid_path');
    assert.match(
      refused({ path: 'a.ts', search: '<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n', replace: '' }).message,
      /"search" starts with "<<<<<<< SEARCH": pass the file's old lines in "search"/,
    );
  });
});
