// Test helpers for webhooks: a real HTTP receiver on 127.0.0.1 that checks signatures with its
// own implementation of the algorithm, and a store in a temporary data dir.
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
export { openTestStore } from '../../support/store.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Decides the answer per request (default: 204). */
  reply: (request: ReceivedRequest) => Reply;
}

export async function startReceiver(t: TestContext): Promise<Receiver> {
  const receiver: Receiver = { url: '', requests: [], reply: () => ({ status: 204 }) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.requests.push(request);
      const reply = receiver.reply(request);
      if (reply === 'hang') return; // never answers; closed when the test ends
      res.writeHead(reply.status, reply.headers);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** The receiver's own check: HMAC-SHA256 over `${id}.${timestamp}.${body}`, base64, after `v1,`. */
export function independentlyVerified(secret: string, request: ReceivedRequest): boolean {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signature = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return signature.split(' ').some((s) => {
    if (!s.startsWith('v1,')) return false;
    const given = Buffer.from(s.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-webhooks-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
