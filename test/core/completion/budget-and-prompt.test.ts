import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutPrefix, cutSuffix } from '../../../src/core/completion/budget.ts';
import { cursorFromPrompt, readsAsInstruction } from '../../../src/core/completion/prompt-rule.ts';
import type { LoomError } from '../../../src/core/errors.ts';

describe('budgets', () => {
  it('keeps short text whole and cuts long text at line boundaries', () => {
    assert.equal(cutPrefix('abc', 10), 'abc');
    assert.equal(cutPrefix('line one\nline two\nlast', 15), 'line two\nlast');
    assert.equal(cutSuffix('first\nsecond\nthird', 14), 'first\nsecond\n');
    assert.equal(cutPrefix('x'.repeat(100), 10), 'x'.repeat(10), 'one long line: its end');
  });
});

describe('prompt and context (local /api/ai/complete)', () => {
  const context = 'function add(a, b) {\n  return a + b;\n}\n';

  it('puts the cursor after the prompt when the context holds it', () => {
    assert.deepEqual(cursorFromPrompt({ prompt: '  return a', context, mode: 'auto', chat: false }), {
      prefix: 'function add(a, b) {\n  return a',
      suffix: ' + b;\n}\n',
      mode: 'fim',
    });
  });

  it('prefers an occurrence of the prompt that ends a line: where the user is typing', () => {
    const file = '  const a = 1;\n  const\n  const b = 2;\n';
    const cursor = cursorFromPrompt({ prompt: '  const', context: file, mode: 'auto', chat: false });
    assert.deepEqual([cursor.prefix, cursor.suffix], ['  const a = 1;\n  const', '\n  const b = 2;\n']);
  });

  it('takes the cursor between the prompt and `suffix` when a client sends one: a prompt that occurs again cannot move it', () => {
    // With the file as context, `'` typed at its start (the editor closed it) ends at the line's end.
    assert.deepEqual(cursorFromPrompt({ prompt: "'", context: "''", mode: 'continue', chat: false }), { prefix: "''", suffix: '', mode: 'fim' });
    assert.deepEqual(cursorFromPrompt({ prompt: "'", context: '', suffix: "'", mode: 'continue', chat: false }), { prefix: "'", suffix: "'", mode: 'fim' });
    assert.deepEqual(cursorFromPrompt({ prompt: 'import', context: '', suffix: '\nimport fs', mode: 'auto', chat: true }), {
      prefix: 'import',
      suffix: '\nimport fs',
      mode: 'fim',
    });
    assert.throws(
      () => cursorFromPrompt({ prompt: 'a', context: 'a b', suffix: ' b', mode: 'auto', chat: false }),
      (error: LoomError) => error.code === 'bad_request',
    );
    assert.throws(
      () => cursorFromPrompt({ prompt: 'Write a test', context: '', suffix: '', mode: 'instruct', chat: true }),
      (error: LoomError) => error.code === 'bad_request',
    );
  });

  it('appends a prompt the context lacks, unless it is an instruction to a chat model', () => {
    assert.deepEqual(cursorFromPrompt({ prompt: 'const x = ', context, mode: 'auto', chat: true }), {
      prefix: context + 'const x = ',
      suffix: '',
      mode: 'fim',
    });
    const instruction = 'Write a function that multiplies two numbers';
    assert.equal(cursorFromPrompt({ prompt: instruction, context, mode: 'auto', chat: true }).mode, 'instruct');
    assert.equal(cursorFromPrompt({ prompt: instruction, context, mode: 'auto', chat: false }).mode, 'fim');
    assert.equal(cursorFromPrompt({ prompt: instruction, context, mode: 'continue', chat: true }).mode, 'fim');
    assert.equal(cursorFromPrompt({ prompt: 'x', context, mode: 'instruct', chat: true }).mode, 'instruct');
  });

  it('tells prose from code', () => {
    for (const prose of ['Add error handling to this function', 'sort the users by `lastName` please', 'Explain what this regex does.'])
      assert.ok(readsAsInstruction(prose), prose);
    for (const code of ['const value = compute(', 'return a + b;', 'if (x) {', 'import fs from', 'foo', 'items.map(x => x * 2)'])
      assert.ok(!readsAsInstruction(code), code);
  });
});
