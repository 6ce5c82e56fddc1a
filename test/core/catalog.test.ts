import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CatalogError, loadCatalog, parseCatalog } from '../../src/core/catalog/load.ts';

const model = { name: 'M', provider: 'P', params: '1B', url: 'https://example.com/m' };
const asset = { key: 'linux-x64', name: 'A', platform: 'linux', url: 'https://example.com/a' };

function tempFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-catalog-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('catalog', () => {
  it('ships a valid default catalog with all three products', () => {
    const catalog = loadCatalog();
    assert.deepEqual(
      catalog.products.map((p) => p.id),
      ['ide', 'omni', 'cli'],
    );
    for (const product of catalog.products) {
      for (const a of product.assets) assert.match(a.key, /^(windows|macos|linux)-(x64|arm64)$/);
    }
  });

  it('reads JSON and YAML files', () => {
    const data = { products: [{ id: 'cli', name: 'CLI', assets: [asset] }], models: [model] };
    assert.deepEqual(loadCatalog(tempFile('c.json', JSON.stringify(data))), data);
    assert.deepEqual(loadCatalog(tempFile('c.yaml', 'products:\n  - id: cli\n    name: CLI\n    assets: []\nmodels: []\n')), {
      products: [{ id: 'cli', name: 'CLI', assets: [] }],
      models: [],
    });
  });

  const invalid: [string, unknown, RegExp][] = [
    ['an unknown product', { products: [{ id: 'studio', name: 'S', assets: [] }], models: [] }, /products\/0\/id/],
    ['an asset without url', { products: [{ id: 'ide', name: 'I', assets: [{ ...asset, url: undefined }] }], models: [] }, /url/],
    ['a bad platform', { products: [{ id: 'ide', name: 'I', assets: [{ ...asset, platform: 'bsd' }] }], models: [] }, /platform/],
    ['a model URL that is not a URL', { products: [], models: [{ ...model, url: 'not a url' }] }, /models\/0\/url/],
    ['a misspelt key', { products: [], models: [], modles: [] }, /modles|additional/i],
    [
      'a product listed twice',
      {
        products: [
          { id: 'ide', name: 'I', assets: [] },
          { id: 'ide', name: 'J', assets: [] },
        ],
        models: [],
      },
      /twice/,
    ],
    ['an asset key listed twice', { products: [{ id: 'ide', name: 'I', assets: [asset, asset] }], models: [] }, /twice/],
  ];
  for (const [label, data, message] of invalid) {
    it(`rejects ${label} with a message saying where`, () => {
      assert.throws(
        () => parseCatalog(data, 'test catalog'),
        (error: Error) => {
          assert.ok(error instanceof CatalogError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it('reports a missing or unparsable file clearly', () => {
    assert.throws(() => loadCatalog('/nonexistent/catalog.yaml'), /cannot read catalog/);
    assert.throws(() => loadCatalog(tempFile('c.json', '{oops')), /does not parse/);
  });
});
