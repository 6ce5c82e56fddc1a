// The overlap rule: a completion never repeats what follows the cursor (quotes, brackets and tags
// an editor closed, the next lines), and keeps the closers that are its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fitToSuffix, type Fitted } from '../../../src/core/completion/suffix-overlap.ts';

/** Fits `text` at the cursor `|` of `around` (the text before and after it). */
function fit(around: string, text: string): Fitted {
  const at = around.indexOf('|');
  assert.notEqual(at, -1, 'the case marks its cursor with |');
  return fitToSuffix(text, { prefix: around.slice(0, at), suffix: around.slice(at + 1) });
}

/** The document once the fitted completion (and its continuation) is accepted at the cursor. */
function accepted(around: string, text: string): string {
  const at = around.indexOf('|');
  const { completion, continuation } = fit(around, text);
  const after = around.slice(at + 1);
  const skip = continuation?.skip ?? 0;
  return around.slice(0, at) + completion + after.slice(0, skip) + (continuation?.text ?? '') + after.slice(skip);
}

describe('the overlap rule', () => {
  it("an auto-closed quote: `fs';` before `'` inserts `fs`, and its `;` goes after the quote", () => {
    const around = "import fs from 'node:|'\n";
    assert.deepEqual(fit(around, "fs';"), { completion: 'fs', continuation: { skip: 1, text: ';' } });
    assert.equal(accepted(around, "fs';"), "import fs from 'node:fs';\n");
    assert.deepEqual(fit(around, "fs'"), { completion: 'fs' });
    assert.deepEqual(fit("import fs from 'node:|';\n", "fs';"), { completion: 'fs' });
    assert.deepEqual(fit('name = "|"', 'Ada"'), { completion: 'Ada' });
    assert.deepEqual(fit('print(f"|")', '{total}")'), { completion: '{total}' }, 'brackets inside a string are text');
  });

  it('brackets: `foo(|)` completing `a, b)` → `a, b`, and what goes on past the `)` follows it', () => {
    assert.deepEqual(fit('foo(|)', 'a, b)'), { completion: 'a, b' });
    assert.deepEqual(fit('foo(|)', 'a, b) + 1;'), { completion: 'a, b', continuation: { skip: 1, text: ' + 1;' } });
    assert.equal(accepted('x = foo(|)\n', 'a, b) + 1;'), 'x = foo(a, b) + 1;\n');
    assert.deepEqual(fit('items[|]', 'i + 1]'), { completion: 'i + 1' });
    assert.deepEqual(fit('const point = {|}', ' x: 1, y: 2 }'), { completion: ' x: 1, y: 2 ' });
    assert.deepEqual(fit('if (|) {', 'ready) {'), { completion: 'ready' });
    assert.deepEqual(fit('f(g(|))', 'x))'), { completion: 'x' });
    assert.deepEqual(fit('let x = |;', 'compute();'), { completion: 'compute()' });
  });

  it('tags: the closing tag the editor wrote is not written again', () => {
    assert.deepEqual(fit('<div>|</div>\n', 'hello</div>'), { completion: 'hello' });
    assert.deepEqual(fit('<p class="|"></p>', 'note">Hi</p>'), { completion: 'note', continuation: { skip: 2, text: 'Hi' } });
    assert.equal(accepted('<p class="|"></p>', 'note">Hi</p>'), '<p class="note">Hi</p>');
    assert.deepEqual(fit('<Button onClick={|} />', 'save} />'), { completion: 'save' });
  });

  it('keeps the closers that are its own: one it opened, or a quote that opens a new string', () => {
    assert.deepEqual(fit('bar(|)', 'foo(x)'), { completion: 'foo(x)' });
    assert.deepEqual(fit('bar(|)', 'foo(x))'), { completion: 'foo(x)' });
    assert.deepEqual(fit("import fs from 'node:|'", "fs' + x + '"), { completion: "fs' + x + '" });
    assert.equal(accepted("import fs from 'node:|'", "fs' + x + '"), "import fs from 'node:fs' + x + ''");
    assert.deepEqual(fit('foo(|)', 'a) + g(b'), { completion: 'a) + g(b' }, 'it closes the call and opens another the `)` closes');
    assert.deepEqual(fit('log(|)', '"a)b", c)'), { completion: '"a)b", c' }, 'a bracket in a string closes nothing');
    assert.deepEqual(fit('print(|\n', 'value)'), { completion: 'value)' }, 'nothing after the cursor closes it');
  });

  it('a completion that only repeats what follows the cursor is no completion', () => {
    assert.deepEqual(fit('return |value;\n', 'value'), { completion: '' });
    assert.deepEqual(fit('return |value;\n', 'value;'), { completion: '' });
    assert.deepEqual(fit('print(|)\n', ')'), { completion: '' });
    assert.deepEqual(fit('print(|)\n', ');'), { completion: '' }, 'nothing to insert at the cursor: its `;` alone is no suggestion');
    assert.deepEqual(fit('x = |  + 1', ' + 1'), { completion: '' });
    assert.deepEqual(fit('  |\n  return total;\n', 'return total;'), { completion: '' });
  });

  it('repeats at the end of a word: only whole tokens overlap', () => {
    assert.deepEqual(fit('return |value;\n', 'this.value'), { completion: 'this.' });
    assert.deepEqual(fit('x = |b;\n', 'a + b'), { completion: 'a + ' });
    assert.deepEqual(fit('x = |ab;\n', 'a + b'), { completion: 'a + b' }, '`b` is not the word `ab`');
  });

  it('multi-line: the last lines of a block that are the next lines of code go', () => {
    const around = 'function f(items) {\n  |\n  return total;\n}\n';
    assert.deepEqual(fit(around, 'let total = 0;\n  for (const i of items) total += i;\n  return total;'), {
      completion: 'let total = 0;\n  for (const i of items) total += i;',
    });
    // Two lines repeated, blank lines in the suffix between them.
    assert.deepEqual(fit('def f():\n    |\n\n    y = 2\n    return y\n', 'x = 1\n    y = 2\n    return y'), { completion: 'x = 1' });
    // The closer of the function the cursor is in, which the next line already has.
    assert.deepEqual(fit('function f() {\n|\n}\n', 'return 1;\n}'), { completion: 'return 1;' });
    // A closer on the next line, after a line the cursor is typing.
    assert.deepEqual(fit('foo(\n  |\n)\n', 'a, b)'), { completion: 'a, b' });
    assert.deepEqual(fit('foo(|\n)\n', 'a, b)'), { completion: 'a, b' });
  });

  it("multi-line: a block's own closer stays, and a word the next line starts with is no repeat", () => {
    assert.deepEqual(fit('function f() {\n|\n}\n', 'if (a) {\n  x();\n}'), { completion: 'if (a) {\n  x();\n}' });
    assert.deepEqual(fit('const first = |\nitems.push(1)\n', 'items'), { completion: 'items' });
    assert.deepEqual(fit('  |\n  return total;\n', 'total = 1;\n  return'), { completion: 'total = 1;\n  return' }, 'half a line is not the line');
  });

  it('whitespace differences do not hide a repeat', () => {
    assert.deepEqual(fit('foo(| )', 'a, b )'), { completion: 'a, b' });
    assert.deepEqual(fit('foo(|)', 'a, b )'), { completion: 'a, b ' });
    assert.deepEqual(fit('def f():\n    |\n    return  total\n', 'total = 0\n\treturn total'), { completion: 'total = 0' });
    assert.deepEqual(fit('x = [|]', '1, 2 ]  '), { completion: '1, 2 ' });
  });

  it('a continuation goes only where it fits the rest of the line', () => {
    // The model's line after the quote is not the line's: the part it cannot place is left out.
    assert.deepEqual(fit("foo('|', 1)", "a', 2)"), { completion: 'a' });
    assert.deepEqual(fit("foo('|', 1)", "a', 1)"), { completion: 'a' });
    // It passed the quote and then wrote what the line has after it.
    assert.deepEqual(fit("foo('|');\n", "a');"), { completion: 'a' });
    assert.deepEqual(fit("foo('|')\n", "a');"), { completion: 'a', continuation: { skip: 2, text: ';' } });
    assert.deepEqual(fit('<a href="|"></a>', 'x">link</a>'), { completion: 'x', continuation: { skip: 2, text: 'link' } });
  });

  it('in a comment, quotes and brackets are words', () => {
    assert.deepEqual(fit("// don't |)\n", 'stop)'), { completion: 'stop' });
    assert.deepEqual(fit("// it's |\n", "Ada's"), { completion: "Ada's" });
  });

  it('leaves a completion alone when the text after the cursor has none of its characters', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), fc.stringMatching(/^[0-9 ;(){}'"\n]{0,20}$/), (words, after) => {
        const text = words.join(' ');
        assert.deepEqual(fitToSuffix(text, { prefix: 'x = ', suffix: after }), { completion: text });
      }),
    );
  });

  it('the text inserted is a start of the completion, and its continuation comes from the rest of it', () => {
    const piece = fc.constantFrom('a', 'b', ' ', '(', ')', '[', ']', '{', '}', "'", '"', ';', ',', '\n', '<', '>', '/');
    const text = fc.array(piece, { maxLength: 24 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, text, text, (prefix, completion, suffix) => {
        const fitted = fitToSuffix(completion, { prefix, suffix });
        assert.ok(completion.startsWith(fitted.completion), JSON.stringify({ prefix, completion, suffix, fitted }));
        if (fitted.continuation) {
          assert.notEqual(fitted.completion.trim(), '');
          assert.ok(completion.slice(fitted.completion.length).includes(fitted.continuation.text));
          assert.equal(fitted.continuation.text.includes('\n'), false);
          assert.ok(fitted.continuation.skip > 0 && fitted.continuation.skip <= suffix.indexOf('\n') >>> 0);
        }
      }),
    );
  });

  it('takes linear time on a long line of closers (a quadratic rule would never finish this)', () => {
    const closers = ')'.repeat(200_000);
    const fitted = fitToSuffix('(' + closers, { prefix: 'f(', suffix: closers + '\n'.repeat(200_000) + ')' });
    assert.equal(typeof fitted.completion, 'string');
    const lines = ')\n'.repeat(100_000);
    assert.equal(typeof fitToSuffix('x' + lines, { prefix: '', suffix: lines }).completion, 'string');
  });
});
