import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lex } from '../../../../src/core/completion/builtin/tokenizer.ts';

describe('builtin tokenizer', () => {
  it('keeps identifiers, numbers and strings whole, with the whitespace before them', () => {
    assert.deepEqual(lex('const fooBar = 42.5 + "a b";').tokens, ['const', ' fooBar', ' =', ' 42.5', ' +', ' "a b"', ';']);
  });

  it('keeps common operators whole', () => {
    assert.deepEqual(lex('a === b ?. c => d ...e').tokens, ['a', ' ===', ' b', ' ?.', ' c', ' =>', ' d', ' ...', 'e']);
  });

  it('drops indentation and makes each line break a token', () => {
    assert.deepEqual(lex('if (x) {\r\n    y();\n}').tokens, ['if', ' (', 'x', ')', ' {', '\n', 'y', '(', ')', ';', '\n', '}']);
  });

  it('lexes comments as words and punctuation, with no strings inside', () => {
    assert.deepEqual(lex("// don't stop\nx").tokens, ['//', ' don', "'", 't', ' stop', '\n', 'x']);
    assert.deepEqual(lex('/** @param a */ b').tokens, ['/**', ' @', 'param', ' a', ' */', ' b']);
  });

  it('keeps a template literal whole across lines and ${} nesting', () => {
    assert.deepEqual(lex('x = `a ${f(`b`)}\nc`;').tokens, ['x', ' =', ' `a ${f(`b`)}\nc`', ';']);
  });

  it('ends an unterminated quote at the end of its line', () => {
    assert.deepEqual(lex('a = "open\nb').tokens, ['a', ' =', ' "open', '\n', 'b']);
  });

  it('reports an unfinished word at the cursor as pending', () => {
    const lexed = lex('return this.val', { partial: true });
    assert.deepEqual(lexed.tokens, ['return', ' this', '.']);
    assert.equal(lexed.pending, 'val');
  });

  it('reports whitespace at the cursor as pending, and nothing at a line start', () => {
    assert.equal(lex('return ', { partial: true }).pending, ' ');
    assert.equal(lex('x;\n    ', { partial: true }).pending, '');
    assert.equal(lex('f(a)', { partial: true }).pending, '');
  });

  it('treats an operator that could grow and an open string as pending', () => {
    assert.equal(lex('a =', { partial: true }).pending, ' =');
    assert.equal(lex('a = "hel', { partial: true }).pending, ' "hel');
    assert.equal(lex('a = "hello"', { partial: true }).pending, '');
  });

  it('marks only line breaks in plain code as safe restart points', () => {
    const lexed = lex('a\n/* b\nc */\nd');
    const safeBreaks = lexed.tokens.map((t, i) => (t === '\n' ? lexed.safe[i] : undefined)).filter((v) => v !== undefined);
    assert.deepEqual(safeBreaks, [true, false, true]);
    assert.equal(lexed.safe.length, lexed.tokens.length);
  });

  it('can restart at a safe line break and append', () => {
    const text = 'let a = 1;\nlet b = 2;\n';
    const whole = lex(text);
    const first = lex(text.slice(0, 11));
    const resumed = lex(text, {}, first.ends[first.ends.length - 1], first);
    assert.deepEqual(resumed.tokens, whole.tokens);
    assert.deepEqual(resumed.ends, whole.ends);
  });
});
