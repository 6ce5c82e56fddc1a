// Where no language server runs for a file's language, definitions and references come from the
// code index, by the name under the cursor, and the answer says so (`source: 'index'`); without
// an index the service says why no server runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { EventBus } from '../../../src/core/events/bus.ts';
import { identifierAt, indexNavigation, type NameIndex } from '../../../src/core/language/index-navigation.ts';
import { fileUri } from '../../../src/core/language/lsp-convert.ts';
import type { LanguageServerPool } from '../../../src/core/language/servers.ts';
import { LanguageService } from '../../../src/core/language/service.ts';
import { Documents } from '../../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';

/** No server for anything: every language falls to the index. */
const noServers: LanguageServerPool = {
  serverFor: (language) => ({ unavailable: `No language server serves ${language}.` }),
  request: () => Promise.reject(new Error('no server')),
  settleDiagnostics: () => Promise.reject(new Error('no server')),
  onDiagnostics: () => () => {},
  status: () => [],
  close: async () => {},
};

const at = (line: number, column: number, length: number) => ({ start: { line, column }, end: { line, column: column + length } });

const index: NameIndex = {
  findSymbols: async () => [
    { name: 'build', path: 'lib/build.rb', nameRange: at(3, 7, 5) },
    { name: 'build_all', path: 'lib/build.rb', nameRange: at(9, 7, 9) },
  ],
  references: async (name) => (name === 'build' ? [{ path: 'Rakefile', range: at(2, 3, 5) }] : []),
};

function setUp(t: TestContext, withIndex: boolean) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fallback-')));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'Rakefile'), 'task :default do\n  build\nend\n');
  const paths = new WorkspacePaths(root);
  const events = new EventBus();
  return {
    root,
    service: new LanguageService({
      paths,
      documents: new Documents(paths, events),
      servers: noServers,
      events,
      index: withIndex ? indexNavigation(index, root) : undefined,
    }),
  };
}

describe('the code index where no language server runs', () => {
  it('answers definitions and references by name, marked as the index’s', async (t) => {
    const { root, service } = setUp(t, true);
    const definition = await service.definition('Rakefile', { line: 2, column: 5 });
    assert.deepEqual(definition, { source: 'index', locations: [{ path: 'lib/build.rb', uri: fileUri(root, 'lib/build.rb'), range: at(3, 7, 5) }] });
    const references = await service.references('Rakefile', { line: 2, column: 8 });
    assert.equal(references.source, 'index');
    assert.deepEqual(
      references.locations.map((l) => l.path),
      ['lib/build.rb', 'Rakefile'],
    );
    const uses = await service.references('Rakefile', { line: 2, column: 3 }, { includeDeclaration: false });
    assert.deepEqual(
      uses.locations.map((l) => l.path),
      ['Rakefile'],
    );
  });

  it('says why no server runs when there is no index either', async (t) => {
    const { service } = setUp(t, false);
    await assert.rejects(service.definition('Rakefile', { line: 2, column: 5 }), (error: LoomError) => {
      assert.equal(error.code, 'language_server_unavailable');
      assert.equal(error.message, 'No language server serves ruby.');
      return true;
    });
  });

  it('finds the identifier under the cursor, or just before it', () => {
    const file = { path: 'a.rb', language: 'ruby', text: 'x = déjà_vu(1) + $count\r\n  42\n' };
    assert.equal(identifierAt(file, { line: 1, column: 5 }), 'déjà_vu');
    assert.equal(identifierAt(file, { line: 1, column: 12 }), 'déjà_vu');
    assert.equal(identifierAt(file, { line: 1, column: 18 }), '$count');
    assert.equal(identifierAt(file, { line: 1, column: 14 }), undefined);
    assert.equal(identifierAt(file, { line: 2, column: 3 }), undefined);
    assert.equal(identifierAt(file, { line: 9, column: 1 }), undefined);
  });
});
