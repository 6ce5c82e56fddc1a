import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stopRules } from '../../../src/core/completion/stop-rules.ts';

describe('stop rules', () => {
  it('ends a completion in the middle of a line at the end of the line', () => {
    const rules = stopRules({ prefix: 'const total = ', suffix: '\nconsole.log(total);\n' });
    assert.equal(rules.multiline, false);
    assert.equal(rules.stop('items.length;\nconst next'), 'items.length;'.length);
    assert.equal(rules.finish('items.length;\nconst next = 1;'), 'items.length;');
  });

  it('goes on while the line is not finished', () => {
    const rules = stopRules({ prefix: 'const total = ', suffix: '' });
    assert.equal(rules.stop('items.le'), undefined);
  });

  it('does not repeat a closing bracket the rest of the line already has', () => {
    const rules = stopRules({ prefix: 'print(', suffix: ')\n' });
    assert.equal(rules.stop('value)'), 'value'.length);
    assert.equal(rules.finish('value)'), 'value');
    assert.equal(rules.finish('f(x))'), 'f(x)', 'brackets opened inside the completion may close in it');
  });

  it('keeps a closing bracket nothing after the cursor closes', () => {
    const rules = stopRules({ prefix: 'print(', suffix: '\n' });
    assert.equal(rules.finish('value)'), 'value)');
  });

  it('ignores brackets inside strings', () => {
    const rules = stopRules({ prefix: 'log(', suffix: ')' });
    assert.equal(rules.finish('"a)b", c)'), '"a)b", c');
  });

  it('drops a trailing semicolon the suffix has', () => {
    const rules = stopRules({ prefix: 'let x = ', suffix: ';\n' });
    assert.equal(rules.finish('compute();'), 'compute()');
  });

  it('on an empty line completes a block and ends at a dedent', () => {
    const prefix = 'function f(a) {\n  ';
    const rules = stopRules({ prefix, suffix: '\n}\n' });
    assert.equal(rules.multiline, true);
    const text = 'if (a) {\n    return 1;\n  }\n}\nfunction g() {';
    assert.equal(rules.finish(text), 'if (a) {\n    return 1;\n  }');
  });

  it('ends a block at a blank line', () => {
    const rules = stopRules({ prefix: 'x = 1\n', suffix: '' });
    assert.equal(rules.finish('y = 2\nz = 3\n\nprint(z)'), 'y = 2\nz = 3');
  });

  it('stops before repeating the next line of code after the cursor', () => {
    const rules = stopRules({ prefix: 'def f():\n    ', suffix: '\n    return total\n' });
    assert.equal(rules.finish('total = 0\n    return total\n'), 'total = 0');
  });

  it('an all-whitespace completion is no completion', () => {
    const rules = stopRules({ prefix: 'a = ', suffix: '' });
    assert.equal(rules.finish('   '), '');
    assert.equal(rules.finish('\nb = 1'), '');
  });
});
