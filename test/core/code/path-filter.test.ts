// Which files a text search looks at (ripgrep's -g globs), and which language a file is read as.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { languageOf } from '../../../src/core/code/languages.ts';
import { expandBraces, pathFilter } from '../../../src/core/code/path-filter.ts';

describe('path filter', () => {
  it('includes by any include glob, excludes by any exclude glob, folders included', () => {
    const keep = pathFilter(['*.ts', 'docs/'], ['*.test.ts', 'vendor/']);
    assert.equal(keep('src/a.ts'), true);
    assert.equal(keep('src/a.test.ts'), false);
    assert.equal(keep('docs/guide.md'), true);
    assert.equal(keep('src/readme.md'), false);
    assert.equal(keep('vendor/lib.ts'), false);
    assert.equal(pathFilter()('anything/at/all'), true);
    // Anchored when the glob has a slash, as in .gitignore.
    assert.equal(pathFilter(['src/*.ts'])('src/a.ts'), true);
    assert.equal(pathFilter(['src/*.ts'])('lib/src/a.ts'), false);
  });

  it('expands {a,b} alternatives, nested, and refuses too many globs', () => {
    assert.deepEqual(expandBraces('*.{ts,tsx}'), ['*.ts', '*.tsx']);
    assert.deepEqual(expandBraces('{src,lib}/**/*.{js,{c,m}js}'), [
      'src/**/*.js',
      'src/**/*.cjs',
      'src/**/*.mjs',
      'lib/**/*.js',
      'lib/**/*.cjs',
      'lib/**/*.mjs',
    ]);
    assert.deepEqual(expandBraces('plain\\{x,y}'), ['plain\\{x,y}']);
    assert.equal(pathFilter(['*.{ts,tsx}'])('a.tsx'), true);
    assert.throws(
      () => pathFilter(['{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}']),
      (error: unknown) => error instanceof LoomError && error.code === 'validation_error',
    );
    assert.throws(() => pathFilter(['x'.repeat(2000)]), LoomError);
  });
});

describe('languages', () => {
  it('reads a file by its extension, its name, then its shebang; the rest is text', () => {
    assert.equal(languageOf('src/a.ts', ''), 'typescript');
    assert.equal(languageOf('src/A.TSX', ''), 'tsx');
    assert.equal(languageOf('lib/x.h', ''), 'c');
    assert.equal(languageOf('Rakefile', ''), 'ruby');
    assert.equal(languageOf('bin/tool', '#!/usr/bin/env python3\nprint(1)\n'), 'python');
    assert.equal(languageOf('bin/run', '#!/bin/bash\n'), 'bash');
    assert.equal(languageOf('bin/odd', '#!/usr/bin/env perl\n'), 'text');
    assert.equal(languageOf('README.md', '# Title'), 'text');
  });
});
