// Replace in files, computed (src/core/code/replace.ts): the replacement's forms ($1, $&, ${name},
// $<name>, $$, \n) against the matcher's groups, whole words not shifting the numbers, groups the
// pattern lacks refused, and the edits' positions the editor's on every line ending.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileReplacement, replaceMatches } from '../../../src/core/code/replace.ts';
import { applyTextEdits } from '../../../src/core/language/workspace-edit.ts';
import { compileTextQuery } from '../../../src/core/code/text-match.ts';
import { LoomError } from '../../../src/core/errors.ts';

function replaceAll(text: string, query: Parameters<typeof compileTextQuery>[0], template: string): string {
  const matcher = compileTextQuery(query);
  const { edits } = replaceMatches(text, matcher, compileReplacement(template, matcher, query.regex === true), 10_000);
  return applyTextEdits(text, edits);
}

describe('replace in files, computed', () => {
  it('expands groups as VS Code does', () => {
    const query = { pattern: '(\\w+)@(?P<host>\\w+)', regex: true };
    assert.equal(replaceAll('ann@example', query, '$2:$1'), 'example:ann');
    assert.equal(replaceAll('ann@example', query, '${host}/$<host>/${1}'), 'example/example/ann');
    assert.equal(replaceAll('ann@example', query, '[$&] [$0] $$1'), '[ann@example] [ann@example] $1');
    assert.equal(replaceAll('ann@example', query, 'a\\nb\\tc\\\\d\\x'), 'a\nb\tc\\d\\x');
    // A $ before anything else is a dollar.
    assert.equal(replaceAll('ann@example', query, '$ $x ${'), '$ $x ${');
    // $12 with fewer than twelve groups: $1 then "2".
    assert.equal(replaceAll('ann@example', query, '$12'), 'ann2');
    // A group that took no part is empty.
    assert.equal(replaceAll('ab', { pattern: 'a(x)?b', regex: true }, '[$1]'), '[]');
  });

  it('takes the replacement literally without a regex', () => {
    assert.equal(replaceAll('price', { pattern: 'price' }, '$1 $$ \\n'), '$1 $$ \\n');
  });

  it('numbers the groups as the pattern does under whole words', () => {
    const matcher = compileTextQuery({ pattern: '(c)(o)lour', regex: true, wholeWord: true });
    assert.equal(matcher.groupCount, 2);
    assert.equal(replaceAll('colour colours', { pattern: '(c)(o)lour', regex: true, wholeWord: true }, '$2$1'), 'oc colours');
  });

  it('refuses a group the pattern lacks, and a replacement too long', () => {
    const matcher = compileTextQuery({ pattern: '(a)', regex: true });
    for (const template of ['$2', '${2}', '${name}', '$<name>']) {
      assert.throws(
        () => compileReplacement(template, matcher, true),
        (error: unknown) => error instanceof LoomError && error.code === 'validation_error',
        template,
      );
    }
    assert.throws(() => compileReplacement('x'.repeat(1001), matcher, false), /longer than 1000/);
  });

  it('places the edits as the editor counts lines: \\n, \\r\\n and a lone \\r', () => {
    const text = 'a x\r\nx b\rc x\nx';
    const matcher = compileTextQuery({ pattern: 'x' });
    const { edits, matches } = replaceMatches(text, matcher, compileReplacement('yy', matcher, false), 100);
    assert.deepEqual(
      matches.map((match) => [match.line, match.column, match.preview]),
      [
        [1, 3, 'a x'],
        [2, 1, 'x b'],
        [3, 3, 'c x'],
        [4, 1, 'x'],
      ],
    );
    assert.equal(applyTextEdits(text, edits), 'a yy\r\nyy b\rc yy\nyy');
    // At most `max` matches.
    assert.equal(replaceMatches(text, matcher, compileReplacement('yy', matcher, false), 3).edits.length, 3);
  });
});
