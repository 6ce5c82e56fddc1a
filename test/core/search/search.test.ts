// Regular expressions and queries from outside Loom: matched in linear time on RE2 (patterns
// that make a backtracking engine run for ever answer at once), refused with the engine's
// reason and never the whole pattern, and searched for over many files cooperatively (the event
// loop gets its turns, an abort stops the search between files).
// Replay a failure of the property test with LOOM_FUZZ_SEED=<seed>.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LinearRegex, MAX_PROGRAM_SIZE, RegexRefusal } from '../../../src/core/search/linear-regex.ts';
import { searchLines } from '../../../src/core/search/search-lines.ts';
import { compileTextQuery, MAX_QUERY_CHARS, type TextQueryInput } from '../../../src/core/search/text-query.ts';
import { fuzzSeed } from '../../support/fuzz/run.ts';

describe('LinearRegex', () => {
  it('answers at once for patterns that make a backtracking engine run for ever', () => {
    // On JavaScript's RegExp the first takes minutes, the others longer than anyone waits.
    const nested = LinearRegex.compile('^(a+)+$');
    assert.equal(nested.test(`${'a'.repeat(64)}!`), false);
    assert.equal(nested.test(`${'a'.repeat(100_000)}!`), false);
    assert.equal(nested.test('a'.repeat(100_000)), true);
    assert.equal(LinearRegex.compile('(x+x+)+y').test('x'.repeat(50_000)), false);
    assert.equal(LinearRegex.compile('^(\\w+\\s?)*$').test(`${'word '.repeat(20_000)}!`), false);
    assert.equal(LinearRegex.compile('(.*a){12}').test('a'.repeat(5_000)), true);
  });

  it('keeps the usual syntax: classes, anchors, word boundaries, case folding, named groups', () => {
    assert.ok(LinearRegex.compile('\\bfunction\\s+\\w+\\(').test('export function add(a, b) {'));
    assert.ok(LinearRegex.compile('^\\s*//\\s*(TODO|FIXME)').test('  // FIXME later'));
    assert.ok(LinearRegex.compile('[[:upper:]][[:digit:]]{2}').test('id A42'));
    assert.ok(LinearRegex.compile('(?P<name>x)(?<other>y)').test('xy'));
    assert.ok(LinearRegex.compile('straße', { ignoreCase: true }).test('STRAßE'));
    assert.ok(LinearRegex.compile('\\p{Greek}+').test('αβγ'));
    assert.ok(!LinearRegex.compile('a.b').test('a\nb'));
    assert.ok(LinearRegex.compile('a.b', { dotAll: true }).matchesWhole('a\nb'));
    assert.ok(!LinearRegex.compile('ab').matchesWhole('abc'));
  });

  it('refuses what cannot run in linear time, saying what and why', () => {
    const refused = (pattern: string): string => {
      try {
        LinearRegex.compile(pattern);
      } catch (error) {
        assert.ok(error instanceof RegexRefusal, String(error));
        assert.equal(error.code, 'validation_error');
        return error.message;
      }
      assert.fail(`${pattern} was compiled`);
    };
    assert.equal(
      refused('^((a+)\\2?)+$'),
      'The regular expression cannot be used: invalid escape sequence `\\2`. Backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time.',
    );
    assert.match(refused('(?<n>a)\\k<n>'), /Backreferences/);
    assert.match(refused('foo(?=bar)'), /`\(\?=`\. Lookahead \(\(\?=…\), \(\?!…\)\) is not supported/);
    assert.match(refused('foo(?!bar)'), /Lookahead/);
    assert.match(refused('(?<=a)b'), /Lookbehind/);
    assert.match(refused('(?<!a)b'), /Lookbehind/);
    assert.match(refused('(?>a)'), /Atomic groups/);
    assert.match(refused('a++'), /Possessive/);
    assert.match(refused('a{2}+'), /Possessive/);
    assert.match(refused('\\u00e9'), /\\x\{00e9\}/);
    assert.match(refused('(a'), /^The regular expression cannot be used: missing closing \) `\(a`\.$/);
    assert.match(refused('a{1001}'), /invalid repeat count/);
    assert.match(refused(`(?:a|b){1000}`.repeat(3)), new RegExp(`too large \\(\\d+ instructions compiled, at most ${MAX_PROGRAM_SIZE}\\)`));
    assert.match(refused('x'.repeat(10_001)), /10001 characters long/);
  });

  it('never quotes more than a short piece of a refused pattern', () => {
    for (const pattern of ['('.repeat(9_000), `${'a'.repeat(9_000)}(`, `[${'b'.repeat(9_000)}`, '('.repeat(5_000) + ')'.repeat(5_000)]) {
      assert.throws(
        () => LinearRegex.compile(pattern),
        (error: unknown) => error instanceof RegexRefusal && error.message.length < 300,
      );
    }
  });

  it('compiles any pattern or refuses it as invalid input, and matches without throwing', () => {
    const seed = fuzzSeed();
    const pieces = fc.constantFrom(
      '(',
      ')',
      '(?:',
      '(?i)',
      '|',
      '*',
      '+',
      '?',
      '{2,3}',
      '{1000}',
      '[',
      ']',
      '^',
      '$',
      '\\',
      '\\b',
      '\\2',
      'a',
      '.',
      '-',
      '[[:alpha:]]',
      '\\p{L}',
      '(?=',
      '(?<',
      '>',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')),
        ),
        fc.string({ maxLength: 200 }),
        (pattern, text) => {
          let regex: LinearRegex;
          try {
            regex = LinearRegex.compile(pattern, { ignoreCase: pattern.length % 2 === 0 });
          } catch (error) {
            assert.ok(error instanceof RegexRefusal, `seed ${seed}: ${JSON.stringify(pattern)} threw ${String(error)}`);
            return;
          }
          regex.test(text);
          regex.matchesWhole(text);
        },
      ),
      { seed, numRuns: 500 },
    );
  });
});

describe('compileTextQuery', () => {
  const compile = (input: Omit<TextQueryInput, 'maxLineChars'>) => compileTextQuery({ ...input, maxLineChars: 4000 });

  it('matches plain text literally, in either case on request, and regular expressions on RE2', () => {
    assert.ok(compile({ query: 'a.b(' }).test('x a.b( y'));
    assert.ok(!compile({ query: 'a.b(' }).test('axb('));
    assert.ok(!compile({ query: 'Add' }).test('add'));
    assert.ok(compile({ query: 'Add', caseSensitive: false }).test('x ADD y'));
    assert.ok(compile({ query: '^(a+)+$', regex: true }).test('aaa'));
    assert.ok(!compile({ query: '^(a+)+$', regex: true }).test(`${'a'.repeat(64)}!`));
    assert.ok(compile({ query: 'ADD\\(', regex: true, caseSensitive: false }).test('add(1)'));
  });

  it('searches shorter lines with a larger regular expression, so that one line costs the same at most', () => {
    assert.equal(compile({ query: 'x'.repeat(1000) }).maxLineChars, 4000, "plain text: the caller's bound");
    assert.equal(compile({ query: '\\bfunction\\s+\\w+\\(', regex: true }).maxLineChars, 4000);
    const large = compile({ query: '(?:a|b)*a(?:a|b){999}c', regex: true });
    assert.ok(large.maxLineChars < 1000 && large.maxLineChars > 100, String(large.maxLineChars));
  });

  it('refuses an empty query and one past the bound in a short message that does not quote it', () => {
    assert.throws(() => compile({ query: '' }), { code: 'validation_error', message: 'The query is empty: give the text to search for.' });
    for (const regex of [false, true]) {
      assert.throws(() => compile({ query: '('.repeat(100_000), regex }), {
        code: 'validation_error',
        message: `The query is 100000 characters long; at most ${MAX_QUERY_CHARS} are searched for. Search for a shorter, distinctive part of it.`,
      });
    }
    assert.ok(compile({ query: 'x'.repeat(MAX_QUERY_CHARS) }));
  });
});

describe('searchLines', () => {
  const files: Record<string, string> = {
    'a.ts': 'const a = 1;\r\n// TODO: a\r\n',
    'b.ts': `// TODO: b\n${'x'.repeat(4000)} // TODO: long\n`,
    'c.bin': '',
    'd.ts': '// TODO: d1\n// TODO: d2\n',
  };
  const read = (file: string) => (file.endsWith('.bin') ? null : files[file]!);
  const todo = compileTextQuery({ query: 'TODO: \\w+$', regex: true, maxLineChars: 4000 });

  it('finds the lines in file order, without their line endings, counting the long lines it skips and skipping unreadable files', async () => {
    const { matches, more, longLines } = await searchLines(Object.keys(files), read, todo, { maxMatches: 10 });
    assert.deepEqual(matches, [
      { file: 'a.ts', line: 2, text: '// TODO: a' },
      { file: 'b.ts', line: 1, text: '// TODO: b' },
      { file: 'd.ts', line: 1, text: '// TODO: d1' },
      { file: 'd.ts', line: 2, text: '// TODO: d2' },
    ]);
    assert.deepEqual([more, longLines], [false, 1]);
    const cut = await searchLines(Object.keys(files), read, todo, { maxMatches: 3 });
    assert.deepEqual([cut.matches.length, cut.more], [3, true]);
  });

  it('gives the event loop its turn between files, and stops between files when its signal aborts', async () => {
    const controller = new AbortController();
    const reads: string[] = [];
    let turns = 0;
    const search = searchLines(
      ['a.ts', 'b.ts', 'c.bin', 'd.ts'],
      (file) => {
        reads.push(file);
        // What is queued for the event loop now has run before the next file is read.
        setImmediate(() => turns++);
        assert.equal(turns, reads.length - 1, `the event loop had its turn before ${file}`);
        if (file === 'b.ts') controller.abort(new Error('the task is ending'));
        return read(file);
      },
      todo,
      { maxMatches: 10, signal: controller.signal },
    );
    await assert.rejects(search, { message: 'the task is ending' });
    assert.deepEqual(reads, ['a.ts', 'b.ts']);
  });
});
