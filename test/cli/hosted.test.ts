// `loom hosted` as a process: bad settings stop it before it starts, with one line on stderr
// and exit code 2; SIGTERM shuts it down cleanly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cleanEnv, hasStackTrace, runLoom, startLoom, tempDir } from '../support/cli.ts';

describe('loom hosted', () => {
  const refused: [string, string[], Record<string, string>, RegExp][] = [
    ['a port that is not a number', ['--port', 'notaport'], {}, /^loom: --port: "notaport" is not a whole number\n$/],
    ['a port out of range from the environment', [], { LOOM_HOSTED_PORT: '70000' }, /^loom: LOOM_HOSTED_PORT: "70000" is not between 0 and 65535\n$/],
    [
      'a trustProxy that is no address',
      [],
      { LOOM_TRUST_PROXY: 'abc' },
      /^loom: LOOM_TRUST_PROXY: "abc" is not true, false, a hop count or a list of addresses\n$/,
    ],
    [
      'a DATABASE_URL that is not PostgreSQL, without its password',
      [],
      { DATABASE_URL: 'mysql://app:s3cret@db/app' },
      /^loom: DATABASE_URL: "mysql:\/\/app:\*\*\*@db\/app" is not a postgres: or postgresql: URL\n$/,
    ],
  ];
  for (const [what, args, env, message] of refused) {
    it(`exits with code 2 and one line on stderr for ${what}`, async (t) => {
      const home = tempDir(t);
      const result = await runLoom(['hosted', '--data-dir', home, '--log-level', 'silent', ...args], cleanEnv(home, env));
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, message);
      assert.ok(!hasStackTrace(result.stderr));
    });
  }

  it('exits with code 2 naming the file for an unknown key in --config', async (t) => {
    const home = tempDir(t);
    const file = path.join(home, 'loom.json');
    fs.writeFileSync(file, JSON.stringify({ hosted: { prot: 9000 } }));
    const result = await runLoom(['hosted', '--config', file, '--data-dir', home], cleanEnv(home));
    assert.equal(result.code, 2);
    assert.equal(result.stderr, `loom: config file ${file}: unknown setting "hosted.prot"\n`);
  });

  it('links to the port it really listens on when started with --port 0', async (t) => {
    const home = tempDir(t);
    const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', home, '--log-level', 'silent'], cleanEnv(home));
    assert.match(server.stdout(), new RegExp(`OpenAPI\\s+${server.url.replace(/\./g, '\\.')}/openapi\\.json`));
    assert.match(server.stdout(), new RegExp(`MCP\\s+${server.url.replace(/\./g, '\\.')}/mcp\n`));
    const openapi = await (await fetch(`${server.url}/openapi.json`)).json();
    assert.equal(openapi.servers[0].url, `${server.url}/api/v1`);
  });

  it('closes and exits with code 0 on SIGTERM', async (t) => {
    const home = tempDir(t);
    const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', home, '--log-level', 'silent'], cleanEnv(home));
    const res = await fetch(`${server.url}/api/v1/health`);
    assert.equal(res.status, 200);
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.equal(server.stderr(), '');
  });
});
