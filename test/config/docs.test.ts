import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { renderConfigDocs } from '../../src/config/docs.ts';
import { SETTINGS } from '../../src/config/settings.ts';

const DOCS = new URL('../../docs/configuration.md', import.meta.url);

describe('docs/configuration.md', () => {
  it('is what the settings table renders', () => {
    const written = fs.readFileSync(DOCS, 'utf8');
    assert.ok(
      written === renderConfigDocs(),
      'docs/configuration.md is out of date with src/config/settings.ts; run `npm run docs:config` and commit the result',
    );
  });

  it('has one table row per setting, with its flag and every environment variable', () => {
    const rows = renderConfigDocs()
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    assert.equal(rows.length, SETTINGS.length);
    for (const spec of SETTINGS) {
      const row = rows.find((r) => r.startsWith(`| \`${spec.key}\` |`));
      assert.ok(row, `no row for ${spec.key}`);
      if ('flag' in spec) assert.ok(row.includes(`\`${spec.flag}\``), `${spec.key}: flag missing`);
      for (const name of spec.env) assert.ok(row.includes(`\`${name}\``), `${spec.key}: ${name} missing`);
      assert.equal(row.split(' | ').length, 5, `${spec.key}: a cell holds an unescaped pipe`);
    }
  });
});
