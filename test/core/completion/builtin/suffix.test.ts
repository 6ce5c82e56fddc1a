import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitToSuffix } from '../../../../src/core/completion/builtin/suffix.ts';

describe('fitToSuffix', () => {
  it('keeps a suggestion when nothing follows on the line', () => {
    assert.equal(fitToSuffix('foo(bar);', ''), 'foo(bar);');
  });

  it('drops the closers the rest of the line already has', () => {
    assert.equal(fitToSuffix('bar)', ')'), 'bar');
    assert.equal(fitToSuffix('bar);', ');'), 'bar');
    assert.equal(fitToSuffix('"name"]', '"]'), '"name');
    assert.equal(fitToSuffix('a, b)', ')  // note'), 'a, b');
  });

  it('says nothing when the line already holds the suggestion', () => {
    assert.equal(fitToSuffix(' = 1;', ' = 1;'), '');
    assert.equal(fitToSuffix(')', ')'), '');
  });

  it('keeps text that only looks like the suffix', () => {
    assert.equal(fitToSuffix('a + b', 'b;'), 'a + b');
  });

  it('trims trailing whitespace', () => {
    assert.equal(fitToSuffix('foo  ', ''), 'foo');
  });
});
