// The hosted API's typed client against a server that is not one: an answer without end is read
// up to the client's cap (MAX_ANSWER_BYTES) and refused as invalid_answer, never held whole.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { HostedApiError, HostedClient, MAX_ANSWER_BYTES } from '../../src/client/hosted.ts';
import { waitFor } from '../support/wait.ts';

describe('HostedClient', () => {
  it('refuses an answer larger than its cap as invalid_answer, and hangs up', async (t) => {
    let hungUp = false;
    // Pours JSON-looking bytes, as fast as they are read, until the client hangs up (or a guard well past the cap).
    const server = http.createServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => (hungUp = !res.writableFinished));
      const piece = 'x'.repeat(1024 * 1024);
      res.write('{"products":"');
      for (let written = 0; written < MAX_ANSWER_BYTES + 16 * 1024 * 1024 && !res.destroyed; written += piece.length) {
        if (!res.write(piece)) await new Promise((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
      }
      res.end('"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const client = new HostedClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    await assert.rejects(
      client.call('listDownloads', {}),
      (error: unknown) => error instanceof HostedApiError && error.code === 'invalid_answer' && error.message.includes(`more than ${MAX_ANSWER_BYTES} bytes`),
    );
    await waitFor(() => hungUp, undefined, 'the client hanging up');
  });
});
