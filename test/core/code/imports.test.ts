import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImportResolver } from '../../../src/core/code/imports.ts';

describe('ImportResolver', () => {
  const resolver = new ImportResolver([
    'src/a.ts',
    'src/utils/url.ts',
    'src/jsx/index.tsx',
    'src/client/index.js',
    'lib/helpers/buildURL.js',
    'src/flask/__init__.py',
    'src/flask/ctx.py',
    'src/flask/json/__init__.py',
    'src/flask/json/tag.py',
    'other/json/tag.py',
    'render/json.go',
    'render/html.go',
    'render/json_test.go',
    'gin.go',
  ]);

  it('resolves relative script specifiers: extensions, index files, .js written for .ts', () => {
    assert.deepEqual(resolver.resolve('src/a.ts', './utils/url'), ['src/utils/url.ts']);
    assert.deepEqual(resolver.resolve('src/a.ts', './utils/url.js'), ['src/utils/url.ts']);
    assert.deepEqual(resolver.resolve('src/utils/url.ts', '../jsx'), ['src/jsx/index.tsx']);
    assert.deepEqual(resolver.resolve('src/a.ts', './client'), ['src/client/index.js']);
    assert.deepEqual(resolver.resolve('lib/adapters/http.js', '../helpers/buildURL'), ['lib/helpers/buildURL.js']);
    assert.deepEqual(resolver.resolve('src/a.ts', 'react'), []);
    assert.deepEqual(resolver.resolve('src/a.ts', '../../../etc/passwd'), []);
  });

  it('resolves Python modules, relative and absolute, and leaves ambiguous ones', () => {
    assert.deepEqual(resolver.resolve('src/flask/app.py', '.ctx'), ['src/flask/ctx.py']);
    assert.deepEqual(resolver.resolve('src/flask/json/tag.py', '..ctx'), ['src/flask/ctx.py']);
    assert.deepEqual(resolver.resolve('src/flask/json/tag.py', '.'), ['src/flask/json/__init__.py']);
    assert.deepEqual(resolver.resolve('src/flask/app.py', 'flask.json'), ['src/flask/json/__init__.py']);
    assert.deepEqual(resolver.resolve('src/flask/app.py', 'flask.json.tag'), ['src/flask/json/tag.py']);
    assert.deepEqual(resolver.resolve('src/flask/app.py', 'json.tag'), []);
    assert.deepEqual(resolver.resolve('src/flask/app.py', 'werkzeug'), []);
  });

  it('resolves a Go import to its package folder, tests left out', () => {
    assert.deepEqual(resolver.resolve('gin.go', 'github.com/gin-gonic/gin/render'), ['render/json.go', 'render/html.go']);
    assert.deepEqual(resolver.resolve('gin.go', 'net/http'), []);
  });
});
