// `loom downloads list|get` and `loom feedback send` against a real `loom hosted --json` whose
// catalog points at a stand-in code host: the asset resolved by the server, downloaded, resumed
// from a partial file with a Range request, checked against its sha256; feedback stored.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { it, type TestContext } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { cleanEnv, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { startUpstream } from '../support/upstream.ts';

const HOSTED_JSON_READY = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/;

/** Serves `bytes` with HEAD and Range support, as a release host does; records each Range asked for. */
function releaseFile(bytes: Buffer, ranges: string[]) {
  return (request: http.IncomingMessage, response: http.ServerResponse) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (request.headers.range) ranges.push(request.headers.range);
    if (!range) {
      response.writeHead(200, { 'content-length': bytes.length, 'accept-ranges': 'bytes' });
      return response.end(request.method === 'HEAD' ? undefined : bytes);
    }
    const start = Number(range[1]);
    const end = range[2] ? Number(range[2]) : bytes.length - 1;
    response.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${bytes.length}` });
    response.end(request.method === 'HEAD' ? undefined : bytes.subarray(start, end + 1));
  };
}

it('loom downloads list and get (resume, sha256) and loom feedback send, on a running loom hosted', async (t: TestContext) => {
  const home = tempDir(t);
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const bytes = Buffer.alloc(300_000, 7);
  bytes.write('Loom CLI build', 0);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const ranges: string[] = [];
  upstream.behave('/releases/loom-cli-linux-x64.tar.gz', releaseFile(bytes, ranges));
  upstream.behave('/releases/corrupt.tar.gz', releaseFile(Buffer.from('not the build'), []));
  const asset = (key: string, file: string, sum: string, size: number) => ({
    key,
    name: key,
    platform: 'linux',
    url: `${upstream.url}/releases/${file}`,
    sha256: sum,
    size,
  });
  const catalog = path.join(home, 'catalog.json');
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      products: [
        {
          id: 'cli',
          name: 'Loom CLI',
          version: '9.9.9',
          assets: [asset('linux-x64', 'loom-cli-linux-x64.tar.gz', sha256, bytes.length), asset('linux-corrupt', 'corrupt.tar.gz', sha256, 13)],
        },
      ],
      models: [],
    }),
  );
  const env = cleanEnv(home);
  const dataDir = path.join(home, 'data');
  const hosted = await startLoom(t, ['hosted', '--json', '--port', '0', '--catalog', catalog, '--data-dir', dataDir], env, 180_000, HOSTED_JSON_READY);
  const server = ['--server', hosted.url];

  const list = await runLoom(['downloads', 'list', '--json', ...server], env);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(
    JSON.parse(list.stdout).products[0].assets.map((a: { key: string }) => a.key),
    ['linux-x64', 'linux-corrupt'],
  );
  const table = await runLoom(['downloads', 'list', '--product', 'cli', ...server], env);
  assert.match(table.stdout, /cli\s+9\.9\.9\s+linux-x64/);

  // Half of it arrived before an interruption: the next run asks for the rest only.
  const dest = path.join(home, 'loom-cli.tar.gz');
  fs.writeFileSync(`${dest}.partial`, bytes.subarray(0, 100_000));
  const got = await runLoom(['downloads', 'get', 'cli', 'linux-x64', '-o', dest, '--json', ...server], env);
  assert.equal(got.code, 0, got.stderr);
  const answer = JSON.parse(got.stdout);
  assert.deepEqual(
    { ...answer, path: undefined },
    {
      product: 'cli',
      asset: 'linux-x64',
      path: undefined,
      size: bytes.length,
      sha256,
      verified: true,
      url: `${upstream.url}/releases/loom-cli-linux-x64.tar.gz`,
    },
  );
  assert.ok(fs.readFileSync(dest).equals(bytes));
  assert.ok(ranges.includes('bytes=100000-'), ranges.join(', '));
  assert.match(got.stderr, /Resuming at/);
  assert.equal(fs.existsSync(`${dest}.partial`), false);

  const again = await runLoom(['downloads', 'get', 'cli', 'linux-x64', '-o', dest, ...server], env);
  assert.equal(again.code, EXIT.failure);
  assert.match(again.stderr, /exists already; --force/);

  const corrupt = await runLoom(['downloads', 'get', 'cli', 'linux-corrupt', '-o', path.join(home, 'corrupt'), ...server], env);
  assert.equal(corrupt.code, EXIT.failure);
  assert.equal(fs.existsSync(path.join(home, 'corrupt')), false);
  const missing = await runLoom(['downloads', 'get', 'cli', 'windows-x64', ...server], env);
  assert.equal(missing.code, EXIT.failure);
  assert.match(missing.stderr, /^loom: [^\n]+\n$/);

  // Feedback: the message from stdin is not possible with runLoom's ignored stdin, so --message.
  const sent = await runLoom(
    ['feedback', 'send', '--subject', 'Tab', '--message', 'Completes too eagerly', '--email', 'ada@example.com', '--name', 'Ada', '--json', ...server],
    env,
  );
  assert.equal(sent.code, 0, sent.stderr);
  const stored = JSON.parse(sent.stdout);
  assert.equal(stored.ok, true);
  const listed = await runLoom(['admin', 'feedback', 'list', '--json', '--data-dir', dataDir], env);
  assert.equal(JSON.parse(listed.stdout)[0].id, stored.id);
  const anonymous = await runLoom(['feedback', 'send', '--subject', 'Tab', '--message', 'Hi', ...server], env);
  assert.equal(anonymous.code, EXIT.usage);
  assert.match(anonymous.stderr, /give --email/);
  const invalid = await runLoom(['feedback', 'send', '--subject', 'Tab', '--message', 'Hi', '--email', 'not an address', ...server], env);
  assert.equal(invalid.code, EXIT.failure);
  assert.match(invalid.stderr, /^loom: [^\n]+\n$/);
});
