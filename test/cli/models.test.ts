// `loom models list|pull` as a user runs them: the real command, a temporary catalog whose
// model files are served by a local HTTP server, and a temporary models folder.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { cleanEnv, hasStackTrace, runLoom, tempDir } from '../support/cli.ts';

const BODY = Buffer.concat([Buffer.from('GGUF'), randomBytes(200 * 1024)]);
const SHA = createHash('sha256').update(BODY).digest('hex');

describe('loom models', () => {
  const requests: { path: string; range?: string }[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({ path: url, range: req.headers.range });
    if (!url.startsWith('/files/')) {
      res.writeHead(404);
      return res.end();
    }
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    if (start > 0) {
      res.writeHead(206, { 'content-length': BODY.length - start, 'content-range': `bytes ${start}-${BODY.length - 1}/${BODY.length}` });
      return res.end(BODY.subarray(start));
    }
    res.writeHead(200, { 'content-length': BODY.length });
    res.end(BODY);
  });
  let base: string;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A home with a catalog of four models (good, wrong digest, no digest, no file) and a models folder. */
  function setup(t: TestContext) {
    const home = tempDir(t);
    const modelsDir = path.join(home, 'models');
    const catalog = {
      products: [],
      models: [
        {
          name: 'Tiny-Coder-1M',
          provider: 'Test',
          params: '1M',
          url: 'https://example.com/tiny',
          file: { url: `${base}/files/tiny-coder.Q4_K_M.gguf`, size: BODY.length, sha256: SHA, quantization: 'Q4_K_M' },
        },
        {
          name: 'Bad-Digest',
          provider: 'Test',
          params: '1M',
          url: 'https://example.com/bad',
          file: { url: `${base}/files/bad.gguf`, sha256: '0'.repeat(64), quantization: 'Q8_0' },
        },
        {
          name: 'No-Digest',
          provider: 'Test',
          params: '1M',
          url: 'https://example.com/nodigest',
          file: { url: `${base}/files/nodigest.gguf`, quantization: 'Q8_0' },
        },
        { name: 'No-File', provider: 'Test', params: '1M', url: 'https://example.com/nofile' },
      ],
    };
    const catalogFile = path.join(home, 'catalog.json');
    fs.writeFileSync(catalogFile, JSON.stringify(catalog));
    const env = cleanEnv(home, { LOOM_CATALOG: catalogFile, LOOM_MODELS_DIR: modelsDir });
    const loom = (...args: string[]) => runLoom(['models', ...args], env);
    return { home, modelsDir, loom, tinyPath: path.join(modelsDir, 'tiny-coder.Q4_K_M.gguf') };
  }

  it('lists the catalog models, none installed, as a table and as JSON', async (t) => {
    const { loom, modelsDir, tinyPath } = setup(t);
    const table = await loom('list');
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stderr, '');
    const lines = table.stdout.split('\n');
    assert.match(lines[0]!, /^NAME\s+PARAMS\s+QUANT\s+SIZE\s+INSTALLED\s+PATH$/);
    assert.match(lines[1]!, new RegExp(`^Tiny-Coder-1M\\s+1M\\s+Q4_K_M\\s+200\\.0 KB\\s+no\\s+${escape(tinyPath)}$`));
    assert.match(lines[4]!, /^No-File\s+1M\s+-\s+-\s+no\s+\(no download in the catalog\)$/);
    assert.ok(table.stdout.includes(`Models folder: ${modelsDir}`));

    const json = await loom('list', '--json');
    assert.equal(json.code, 0, json.stderr);
    const entries = JSON.parse(json.stdout);
    assert.deepEqual(entries[0], {
      name: 'Tiny-Coder-1M',
      provider: 'Test',
      params: '1M',
      quantization: 'Q4_K_M',
      size: BODY.length,
      sha256: SHA,
      installed: false,
      path: tinyPath,
      downloadUrl: `${base}/files/tiny-coder.Q4_K_M.gguf`,
    });
    assert.equal(entries[3].path, null);
  });

  it('pulls a model with progress, verifies it, and then lists it installed', async (t) => {
    const { loom, tinyPath } = setup(t);
    const pulled = await loom('pull', 'tiny-coder-1m'); // any case
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(pulled.stdout, `Installed Tiny-Coder-1M (200.0 KB, sha256 verified): ${tinyPath}\n`);
    assert.ok(pulled.stderr.startsWith(`Downloading Tiny-Coder-1M from ${base}/files/tiny-coder.Q4_K_M.gguf\n`), pulled.stderr);
    assert.match(pulled.stderr, /Tiny-Coder-1M: 100% \(200\.0 KB of 200\.0 KB\)\n$/);
    assert.ok(!pulled.stderr.includes('\x1b'), 'no terminal control codes when stderr is not a terminal');
    assert.ok(fs.readFileSync(tinyPath).equals(BODY));
    assert.equal(fs.existsSync(`${tinyPath}.partial`), false);

    const listed = JSON.parse((await loom('list', '--json')).stdout);
    assert.equal(listed[0].installed, true);
  });

  it('says so when the model is already installed, and downloads again with --force', async (t) => {
    const { loom, tinyPath } = setup(t);
    fs.mkdirSync(path.dirname(tinyPath), { recursive: true });
    fs.writeFileSync(tinyPath, BODY);
    requests.length = 0;
    const again = await loom('pull', 'Tiny-Coder-1M');
    assert.deepEqual(again, { code: 0, signal: null, stdout: `Tiny-Coder-1M is already installed: ${tinyPath}\n`, stderr: '' });
    assert.equal(requests.length, 0);

    fs.writeFileSync(`${tinyPath}.partial`, Buffer.from('junk that --force throws away'));
    const forced = await loom('pull', 'Tiny-Coder-1M', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(requests, [{ path: '/files/tiny-coder.Q4_K_M.gguf', range: undefined }]);
    assert.ok(fs.readFileSync(tinyPath).equals(BODY));
  });

  it('resumes a download an earlier run left behind', async (t) => {
    const { loom, tinyPath } = setup(t);
    fs.mkdirSync(path.dirname(tinyPath), { recursive: true });
    fs.writeFileSync(`${tinyPath}.partial`, BODY.subarray(0, 50 * 1024));
    requests.length = 0;
    const pulled = await loom('pull', 'Tiny-Coder-1M');
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.match(pulled.stderr, /Resuming at 50\.0 KB of 200\.0 KB\n/);
    assert.deepEqual(requests, [{ path: '/files/tiny-coder.Q4_K_M.gguf', range: `bytes=${50 * 1024}-` }]);
    assert.ok(fs.readFileSync(tinyPath).equals(BODY));
  });

  it('names the known models when asked for an unknown one (exit 1)', async (t) => {
    const { loom } = setup(t);
    const result = await loom('pull', 'GPT-5');
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'loom: unknown model "GPT-5". Known models: Tiny-Coder-1M, Bad-Digest, No-Digest, No-File\n');
  });

  it('fails clearly on a sha256 mismatch and keeps nothing', async (t) => {
    const { loom, modelsDir } = setup(t);
    const result = await loom('pull', 'Bad-Digest');
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`loom: The download of .*/files/bad\\.gguf does not match its sha256 \\(expected 0{64}, got ${SHA}\\); the partial file was deleted`),
    );
    assert.ok(!hasStackTrace(result.stderr));
    assert.deepEqual(fs.readdirSync(modelsDir), []);
  });

  it('refuses a model without a digest unless --no-verify, then prints the digest it got', async (t) => {
    const { loom, modelsDir } = setup(t);
    const refused = await loom('pull', 'No-Digest');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /no sha256 for No-Digest.*--no-verify/);
    assert.equal(fs.existsSync(modelsDir), false);

    const pulled = await loom('pull', 'No-Digest', '--no-verify');
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(pulled.stdout, `Installed No-Digest (200.0 KB, sha256 ${SHA}, not checked): ${path.join(modelsDir, 'nodigest.gguf')}\n`);
  });

  it('says a model without a file has nothing to download', async (t) => {
    const { loom } = setup(t);
    const result = await loom('pull', 'No-File');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^loom: the catalog gives no GGUF file for No-File/);
  });

  it('reports a server that cannot be reached without a stack trace', async (t) => {
    const home = tempDir(t);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const catalogFile = path.join(home, 'catalog.json');
    fs.writeFileSync(
      catalogFile,
      JSON.stringify({
        products: [],
        models: [
          {
            name: 'Gone',
            provider: 'T',
            params: '1M',
            url: 'https://example.com/gone',
            file: { url: `http://127.0.0.1:${port}/x.gguf`, sha256: SHA, quantization: 'Q8_0' },
          },
        ],
      }),
    );
    const env = cleanEnv(home, { LOOM_CATALOG: catalogFile, LOOM_MODELS_DIR: path.join(home, 'models') });
    const result = await runLoom(['models', 'pull', 'Gone'], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^loom: Cannot reach 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED[^\\n]*\\.\\n$`));
    assert.ok(!hasStackTrace(result.stderr));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
