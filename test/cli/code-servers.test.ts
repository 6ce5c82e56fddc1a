// `loom code def|refs|hover|diagnostics|rename` (the real CLI) against a running local server
// (startTestLocal, production wiring; no language server runs, so definitions and references
// come from the code index, and the rest say why nothing answers): their text and --json, a
// usage error for a bad position, exit 1 for a refusal and 3 with no app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { cleanEnv, runLoom, tempDir, unusedPort } from '../support/cli.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const FILES = {
  'src/units.ts': 'export function toMeters(feet: number): number {\n  return feet * 0.3048;\n}\n\nexport const mile = toMeters(5280);\n',
};

describe('loom code def|refs|hover|diagnostics|rename', () => {
  let local: TestLocal;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    local = await startTestLocal({ files: FILES, settings: { apiToken: `loom_${'x'.repeat(40)}` } });
    await local.code.refresh();
    env = cleanEnv(local.configDir);
  });
  after(() => local.close());

  const loom = (...args: string[]) => runLoom(['code', ...args, '--port', String(local.port), '--config-dir', local.configDir], env);

  it('def and refs answer FILE:LINE:COLUMN lines, and say when the index answered', async () => {
    const def = await loom('def', 'src/units.ts:5:21');
    assert.equal(def.code, 0, def.stderr);
    assert.equal(def.stdout, 'src/units.ts:1:17\n(from the code index, by name: no language server runs for this language here)\n');
    const json = await loom('def', './src/units.ts:5:21', '--json');
    assert.equal(JSON.parse(json.stdout).source, 'index');
    assert.deepEqual(JSON.parse(json.stdout).locations[0].range, { start: { line: 1, column: 17 }, end: { line: 1, column: 25 } });
    const refs = await loom('refs', 'src/units.ts:1:17', '--json');
    assert.equal(refs.code, 0, refs.stderr);
    assert.equal(JSON.parse(refs.stdout).locations.length, 2);
  });

  it("hover, diagnostics and rename say that no language server runs (exit 1); diagnostics without FILE lists the workspace's", async () => {
    for (const args of [
      ['hover', 'src/units.ts:1:17'],
      ['diagnostics', 'src/units.ts'],
      ['rename', 'src/units.ts:1:17', 'feetToMeters'],
    ]) {
      const result = await loom(...args);
      assert.equal(result.code, EXIT.failure, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /Language servers are turned off/);
      assert.equal(result.stdout, '');
    }
    const all = await loom('diagnostics');
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout, '0 errors, 0 warnings, 0 notes.\n');
    assert.deepEqual(JSON.parse((await loom('diagnostics', '--json')).stdout), { files: [], counts: { error: 0, warning: 0, information: 0, hint: 0 } });
  });

  it('refuses a malformed position as a usage error, a position outside the file as the app does', async () => {
    for (const position of ['src/units.ts', 'src/units.ts:0:1', 'src/units.ts:1', 'src/units.ts:a:b']) {
      const result = await loom('def', position);
      assert.equal(result.code, EXIT.usage, `${position}: ${result.stderr}`);
      assert.match(result.stderr, /FILE:LINE:COLUMN/);
    }
    const outside = await loom('def', 'src/units.ts:99:1');
    assert.equal(outside.code, EXIT.failure);
    assert.match(outside.stderr, /Line 99 is outside 1\.\.6 of src\/units\.ts/);
    const escape = await loom('refs', '../x.ts:1:1');
    assert.equal(escape.code, EXIT.failure);
  });

  it('with no app running, exits 3 saying so', async (t) => {
    const home = tempDir(t);
    const result = await runLoom(['code', 'def', 'src/units.ts:1:1', '--port', String(await unusedPort()), '--config-dir', home], cleanEnv(home));
    assert.equal(result.code, EXIT.unreachable, result.stderr);
  });
});
