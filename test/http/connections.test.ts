// The per-client connection cap on a plain HTTP server: which connection counts as idle.
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { capConnectionsPerClient } from '../../src/http/connections.ts';
import { waitFor } from '../support/wait.ts';

const HANG_MS = 20_000;

/** A server capped at one connection per client whose `/hold` answers only when released. */
async function cappedServer(t: TestContext) {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    if (request.url === '/hold') held.push(response);
    else response.end('ok');
  });
  // Upgraded connections are the test's to end: the server no longer counts them.
  const upgraded: Socket[] = [];
  server.on('upgrade', (_request, socket: Socket) => upgraded.push(socket));
  const refused: Socket[] = [];
  capConnectionsPerClient(server, { max: 1, acceptsUpgrades: true, exempt: () => false, refuse: (socket) => (refused.push(socket), socket.destroy()) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => (upgraded.forEach((socket) => socket.destroy()), server.closeAllConnections(), server.close(() => resolve()))));
  return { port: (server.address() as net.AddressInfo).port, held, refused };
}

/** A client connection that records whether the server closed it and what it answered. */
async function connect(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const state = { socket, received: '', closed: false };
  socket.on('data', (chunk) => (state.received += chunk.toString('latin1')));
  socket.on('close', () => (state.closed = true));
  socket.on('error', () => {});
  return state;
}

type CappedServer = Awaited<ReturnType<typeof cappedServer>>;
type Client = Awaited<ReturnType<typeof connect>>;

/** Another connection from the same client is refused: the one it has is busy. */
async function assertAnotherRefused(server: CappedServer, busy: Client): Promise<void> {
  const before = server.refused.length;
  const another = await connect(server.port);
  await waitFor(() => another.closed, HANG_MS);
  assert.equal(server.refused.length, before + 1, 'refused: the only connection is busy');
  assert.equal(busy.closed, false);
}

/** Another connection from the same client is let in, and served, by closing `idle`. */
async function assertRoomMadeBy(server: CappedServer, idle: Client): Promise<void> {
  const before = server.refused.length;
  const another = await connect(server.port);
  another.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => idle.closed && another.received.endsWith('ok'), HANG_MS);
  assert.equal(server.refused.length, before, 'the idle connection made room');
  another.socket.destroy();
}

for (const [kind, requests] of [
  ['whose answer is still being written', 'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'],
  // The first answer is done, the second is not: busy.
  ['with pipelined requests, the last not yet answered', 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /hold HTTP/1.1\r\nHost: x\r\n\r\n'],
] as const) {
  test(`a connection ${kind} is never closed to make room; once answered, it is`, { timeout: HANG_MS * 2 }, async (t) => {
    const server = await cappedServer(t);
    const busy = await connect(server.port);
    busy.socket.write(requests);
    await waitFor(() => server.held.length === 1, HANG_MS);
    await assertAnotherRefused(server, busy);

    server.held[0]!.end('done');
    await waitFor(() => busy.received.endsWith('done'), HANG_MS);
    await assertRoomMadeBy(server, busy);
  });
}

for (const [kind, request] of [
  ['has not sent a whole request', 'GET / HTTP/1.1\r\nHo'],
  ['was upgraded', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'],
] as const) {
  test(`a connection that ${kind} is never idle`, { timeout: HANG_MS * 2 }, async (t) => {
    const server = await cappedServer(t);
    const first = await connect(server.port);
    first.socket.write(request);
    await assertAnotherRefused(server, first);
    first.socket.destroy();
  });
}
