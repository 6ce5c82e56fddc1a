import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stopRules, type StopRules } from '../../../src/core/completion/stop-rules.ts';

/** The text to insert (these rules' cases have no continuation). */
function finish(rules: StopRules, text: string): string {
  const fitted = rules.finish(text);
  assert.equal(fitted.continuation, undefined);
  return fitted.completion;
}

describe('stop rules', () => {
  it('ends a completion in the middle of a line at the end of the line', () => {
    const rules = stopRules({ prefix: 'const total = ', suffix: '\nconsole.log(total);\n' });
    assert.equal(rules.multiline, false);
    assert.equal(rules.stop('items.length;\nconst next'), 'items.length;'.length);
    assert.equal(finish(rules, 'items.length;\nconst next = 1;'), 'items.length;');
  });

  it('goes on while the line is not finished', () => {
    const rules = stopRules({ prefix: 'const total = ', suffix: '' });
    assert.equal(rules.stop('items.le'), undefined);
  });

  it('does not repeat a closing bracket the rest of the line already has', () => {
    const rules = stopRules({ prefix: 'print(', suffix: ')\n' });
    assert.equal(rules.stop('value)'), undefined, 'the closer does not end generation: the model may go on past it');
    assert.equal(finish(rules, 'value)'), 'value');
    assert.equal(finish(rules, 'f(x))'), 'f(x)', 'brackets opened inside the completion may close in it');
  });

  it('keeps a closing bracket nothing after the cursor closes', () => {
    const rules = stopRules({ prefix: 'print(', suffix: '\n' });
    assert.equal(finish(rules, 'value)'), 'value)');
  });

  it('ignores brackets inside strings', () => {
    const rules = stopRules({ prefix: 'log(', suffix: ')' });
    assert.equal(finish(rules, '"a)b", c)'), '"a)b", c');
  });

  it('drops a trailing semicolon the suffix has', () => {
    const rules = stopRules({ prefix: 'let x = ', suffix: ';\n' });
    assert.equal(finish(rules, 'compute();'), 'compute()');
  });

  it('on an empty line completes a block and ends at a dedent', () => {
    const prefix = 'function f(a) {\n  ';
    const rules = stopRules({ prefix, suffix: '\n}\n' });
    assert.equal(rules.multiline, true);
    const text = 'if (a) {\n    return 1;\n  }\n}\nfunction g() {';
    assert.equal(finish(rules, text), 'if (a) {\n    return 1;\n  }');
  });

  it('ends a block at a blank line', () => {
    const rules = stopRules({ prefix: 'x = 1\n', suffix: '' });
    assert.equal(finish(rules, 'y = 2\nz = 3\n\nprint(z)'), 'y = 2\nz = 3');
  });

  it('stops before repeating the next line of code after the cursor', () => {
    const rules = stopRules({ prefix: 'def f():\n    ', suffix: '\n    return total\n' });
    assert.equal(finish(rules, 'total = 0\n    return total\n'), 'total = 0');
  });

  it('an all-whitespace completion is no completion', () => {
    const rules = stopRules({ prefix: 'a = ', suffix: '' });
    assert.equal(finish(rules, '   '), '');
    assert.equal(finish(rules, '\nb = 1'), '');
  });
});
