// downloadFile against a local HTTP server: Range resume, servers that drop the connection,
// ignore Range or redirect, stalls, aborts and files that are not what the catalog says.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { DownloadError, downloadFile, partialPathOf, type DownloadProgress } from '../../../src/adapters/models/download.ts';

const BODY = randomBytes(256 * 1024);
const SHA = createHash('sha256').update(BODY).digest('hex');
const HALF = 100 * 1024;

interface Seen {
  path: string;
  range?: string;
}

/** Serves BODY in the ways a model host (or a bad one) does; records each request's Range. */
function startServer() {
  const seen: Seen[] = [];
  let drops = 0;
  let dropWaiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, range: req.headers.range });
    const ranged = (body: Buffer) => {
      const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      if (!match) {
        res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
        return res.end(body);
      }
      const start = Number(match[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` });
        return res.end();
      }
      res.writeHead(206, { 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
      res.end(body.subarray(start));
    };
    switch (url.pathname) {
      case '/file':
        return ranged(BODY);
      case '/redirect':
        res.writeHead(302, { location: '/cdn/file' });
        return res.end();
      case '/cdn/file':
        return ranged(BODY);
      case '/drop': {
        // The first `drops` requests break after part of HALF bytes, when the test says (once
        // the client has provably received some); later ones serve with Range.
        if (drops > 0) {
          drops--;
          res.writeHead(200, { 'content-length': BODY.length });
          dropWaiters.push(() => res.socket?.destroy());
          res.write(BODY.subarray(0, HALF));
          return;
        }
        return ranged(BODY);
      }
      case '/norange':
        res.writeHead(200, { 'content-length': BODY.length });
        return res.end(BODY);
      case '/stall':
        res.writeHead(200, { 'content-length': BODY.length });
        res.write(BODY.subarray(0, HALF)); // and then nothing
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such file');
    }
  });
  return {
    seen,
    server,
    dropNext(n: number) {
      drops = n;
    },
    /** Breaks the connections of the dropping requests under way. */
    dropNow() {
      const waiters = dropWaiters;
      dropWaiters = [];
      for (const drop of waiters) drop();
    },
  };
}

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-download-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('downloadFile', () => {
  const fake = startServer();
  let base: string;
  before(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
  });
  const requestsTo = (p: string) => fake.seen.filter((s) => s.path === p);
  const clear = () => fake.seen.splice(0);

  it('downloads, verifies and renames into place, reporting progress', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'sub', 'model.gguf');
    const progress: DownloadProgress[] = [];
    const result = await downloadFile({ url: `${base}/file`, dest, sha256: SHA, size: BODY.length, onProgress: (p) => progress.push(p) });
    assert.deepEqual(result, { path: dest, size: BODY.length, sha256: SHA, resumedFrom: 0 });
    assert.ok(fs.readFileSync(dest).equals(BODY));
    assert.equal(fs.existsSync(partialPathOf(dest)), false);
    assert.equal(fs.existsSync(`${partialPathOf(dest)}.lock`), false);
    assert.ok(progress.length >= 2);
    assert.deepEqual(progress.at(-1), { done: BODY.length, total: BODY.length, resumedFrom: 0 });
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.done >= progress[i - 1]!.done);
    assert.equal(requestsTo('/file')[0]!.range, undefined);
  });

  it('resumes a partial left by an interrupted run with a Range request', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fs.writeFileSync(partialPathOf(dest), BODY.subarray(0, HALF));
    const progress: DownloadProgress[] = [];
    const result = await downloadFile({ url: `${base}/file`, dest, sha256: SHA, onProgress: (p) => progress.push(p) });
    assert.equal(result.resumedFrom, HALF);
    assert.deepEqual(
      requestsTo('/file').map((s) => s.range),
      [`bytes=${HALF}-`],
    );
    assert.deepEqual(progress[0], { done: HALF, total: BODY.length, resumedFrom: HALF });
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('keeps the partial when the connection drops, and the next run resumes it', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fake.dropNext(1);
    const dropOnceSomeArrived = (p: DownloadProgress) => p.done > p.resumedFrom && fake.dropNow();
    await assert.rejects(downloadFile({ url: `${base}/drop`, dest, sha256: SHA, retries: 0, onProgress: dropOnceSomeArrived }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'network');
      assert.match(error.message, /broke after|closed after/);
      return true;
    });
    const kept = fs.statSync(partialPathOf(dest)).size;
    assert.ok(kept > 0 && kept <= HALF, `kept ${kept} bytes`);
    assert.equal(fs.existsSync(dest), false);
    assert.equal(fs.existsSync(`${partialPathOf(dest)}.lock`), false, 'the lock is released on failure');

    const result = await downloadFile({ url: `${base}/drop`, dest, sha256: SHA, retries: 0 });
    assert.equal(result.resumedFrom, kept);
    assert.deepEqual(
      requestsTo('/drop').map((s) => s.range),
      [undefined, `bytes=${kept}-`],
    );
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('retries a dropped connection itself, resuming where it broke', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fake.dropNext(2);
    const dropOnceSomeArrived = (p: DownloadProgress) => p.done > p.resumedFrom && fake.dropNow();
    const result = await downloadFile({ url: `${base}/drop`, dest, sha256: SHA, size: BODY.length, retryDelayMs: 10, onProgress: dropOnceSomeArrived });
    assert.equal(result.sha256, SHA);
    const ranges = requestsTo('/drop').map((s) => s.range);
    assert.equal(ranges.length, 3);
    assert.equal(ranges[0], undefined);
    assert.match(ranges[2]!, /^bytes=\d+-$/);
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('starts over when the server ignores Range', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fs.writeFileSync(partialPathOf(dest), Buffer.from('stale bytes of another file'));
    const result = await downloadFile({ url: `${base}/norange`, dest, sha256: SHA, size: BODY.length });
    assert.equal(result.size, BODY.length);
    assert.ok(fs.readFileSync(dest).equals(BODY));
    assert.equal(requestsTo('/norange')[0]!.range, 'bytes=27-');
  });

  it('finishes a partial that is already complete (416 from the server)', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fs.writeFileSync(partialPathOf(dest), BODY);
    const result = await downloadFile({ url: `${base}/file`, dest, sha256: SHA });
    assert.equal(result.resumedFrom, BODY.length);
    assert.deepEqual(
      requestsTo('/file').map((s) => s.range),
      [`bytes=${BODY.length}-`],
    );
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('does not even ask when the partial already has the catalog size', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fs.writeFileSync(partialPathOf(dest), BODY);
    await downloadFile({ url: `${base}/file`, dest, sha256: SHA, size: BODY.length });
    assert.equal(requestsTo('/file').length, 0);
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('follows redirects, resuming through them', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    fs.writeFileSync(partialPathOf(dest), BODY.subarray(0, HALF));
    await downloadFile({ url: `${base}/redirect`, dest, sha256: SHA });
    assert.deepEqual(
      fake.seen.map((s) => [s.path, s.range]),
      [
        ['/redirect', `bytes=${HALF}-`],
        ['/cdn/file', `bytes=${HALF}-`],
      ],
    );
    assert.ok(fs.readFileSync(dest).equals(BODY));
  });

  it('deletes the partial and fails clearly when the sha256 does not match', async (t) => {
    const dest = path.join(tempDir(t), 'model.gguf');
    const wrong = 'f'.repeat(64);
    await assert.rejects(downloadFile({ url: `${base}/file`, dest, sha256: wrong }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'checksum');
      assert.ok(error.message.includes(`expected ${wrong}, got ${SHA}`), error.message);
      assert.match(error.message, /partial file was deleted/);
      return true;
    });
    assert.equal(fs.existsSync(partialPathOf(dest)), false);
    assert.equal(fs.existsSync(dest), false);
  });

  it('refuses a file whose size is not the catalog size, keeping nothing', async (t) => {
    const dest = path.join(tempDir(t), 'model.gguf');
    await assert.rejects(downloadFile({ url: `${base}/file`, dest, size: BODY.length - 1 }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'size');
      assert.match(error.message, new RegExp(`serves ${BODY.length} bytes .* catalog says ${BODY.length - 1}`));
      return true;
    });
    assert.equal(fs.existsSync(partialPathOf(dest)), false);
  });

  it('reports an HTTP error without retrying it', async (t) => {
    clear();
    const dest = path.join(tempDir(t), 'model.gguf');
    await assert.rejects(downloadFile({ url: `${base}/missing.gguf`, dest, retryDelayMs: 10 }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'http');
      assert.match(error.message, /answered HTTP 404/);
      return true;
    });
    assert.equal(requestsTo('/missing.gguf').length, 1);
  });

  it('cuts a stalled connection and keeps what arrived', async (t) => {
    const dest = path.join(tempDir(t), 'model.gguf');
    await assert.rejects(downloadFile({ url: `${base}/stall`, dest, stallTimeoutMs: 300, retries: 0 }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'stalled');
      return true;
    });
    assert.equal(fs.statSync(partialPathOf(dest)).size, HALF);
  });

  it('stops when aborted, rejecting with the reason and keeping the partial', async (t) => {
    const dest = path.join(tempDir(t), 'model.gguf');
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    // The server sends part of the file and then holds the connection open: the download can
    // only end through the abort (the stall limit is left at its 30 s).
    const pending = downloadFile({
      url: `${base}/stall`,
      dest,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done >= 16 * 1024 && !controller.signal.aborted) controller.abort(reason);
      },
    });
    await assert.rejects(pending, (error) => error === reason);
    assert.ok(fs.statSync(partialPathOf(dest)).size >= 16 * 1024);
    assert.equal(fs.existsSync(dest), false);
    assert.equal(fs.existsSync(`${partialPathOf(dest)}.lock`), false);
  });

  it("refuses to run two downloads of one file at once, and takes over a dead owner's lock", async (t) => {
    const dest = path.join(tempDir(t), 'model.gguf');
    const lock = `${partialPathOf(dest)}.lock`;
    fs.writeFileSync(lock, String(process.pid));
    await assert.rejects(downloadFile({ url: `${base}/file`, dest }), (error: Error) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.reason, 'busy');
      return true;
    });
    fs.writeFileSync(lock, '2147483646'); // no such process
    await downloadFile({ url: `${base}/file`, dest, sha256: SHA });
    assert.ok(fs.readFileSync(dest).equals(BODY));
    assert.equal(fs.existsSync(lock), false);
  });
});
