// Slow clients cannot hold either server's connections: the headers, request and keep-alive
// timeouts close them (with 408 in the server's envelope where a request was under way), a
// slow answer is not cut, and one client address holds at most `http.maxConnectionsPerClient`
// connections. The limits come in through the config with small values; every wait is for the
// server to close a connection, never for a fixed time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type ConnectionLimits } from '../../src/config/load.ts';
import { startHosted } from '../../src/hosted/server.ts';
import { startTestLocal } from '../support/local.ts';
import { startTestLocalApp } from '../support/local-app.ts';
import { waitFor } from '../support/wait.ts';

/** Only guards against a hang. */
const HANG_MS = 20_000;

interface Server {
  port: number;
  /** Headers every request needs to get past the front door (the local server's token). */
  credentials: string;
  /** A route that answers a GET at once, and one that takes a JSON body. */
  quick: string;
  withBody: string;
  /** How an error code is read from a body in this server's envelope. */
  code(body: string): string;
  close(): Promise<void>;
}

async function localServer(http: Partial<ConnectionLimits>): Promise<Server> {
  const local = await startTestLocal({ http });
  return {
    port: local.port,
    credentials: `Host: 127.0.0.1:${local.port}\r\nAuthorization: Bearer ${local.token()}\r\n`,
    quick: '/api/health',
    withBody: '/api/events/ticket',
    code: (body) => JSON.parse(body).error.code,
    close: () => local.close(),
  };
}

async function hostedServer(http: Partial<ConnectionLimits>, extra: Record<string, unknown> = {}): Promise<Server> {
  const home = fs.mkdtempSync(path.join(tempRoot, 'hosted-'));
  const configFile = path.join(home, 'config.json');
  fs.writeFileSync(configFile, JSON.stringify({ dataDir: home, hosted: { port: 0 }, logLevel: 'silent', rateLimit: { max: 100_000 }, http, ...extra }));
  const hosted = await startHosted(loadConfig({ env: {}, configFile }));
  const port = Number(new URL(hosted.url).port);
  return {
    port,
    credentials: `Host: 127.0.0.1:${port}\r\n`,
    quick: '/api/v1/health',
    withBody: '/api/v1/feedback',
    code: (body) => JSON.parse(body).error,
    close: () => hosted.close(),
  };
}

let tempRoot: string;

/** A raw connection the test drives byte by byte. */
class Connection {
  readonly socket: net.Socket;
  text = '';
  closed = false;
  private constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (chunk) => (this.text += chunk.toString('latin1')));
    this.socket.on('error', () => {});
    this.socket.on('close', () => (this.closed = true));
  }
  static async open(port: number): Promise<Connection> {
    const connection = new Connection(port);
    await new Promise((resolve) => connection.socket.once('connect', resolve));
    return connection;
  }
  send(text: string): this {
    this.socket.write(text);
    return this;
  }
  async closedByServer(): Promise<this> {
    await waitFor(() => this.closed, HANG_MS);
    return this;
  }
  async answered(count = 1): Promise<this> {
    await waitFor(() => this.text.split(/^HTTP\/1\.1 /m).length - 1 >= count && this.complete(), HANG_MS);
    return this;
  }
  /** Statuses of the answers received so far. */
  statuses(): number[] {
    return [...this.text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
  }
  lastBody(): string {
    return this.text.slice(this.text.lastIndexOf('\r\n\r\n') + 4);
  }
  private complete(): boolean {
    const length = Number(/content-length: (\d+)/i.exec(this.text.slice(this.text.lastIndexOf('HTTP/1.1 ')))?.[1] ?? 0);
    return this.lastBody().length >= length;
  }
  destroy(): void {
    this.socket.destroy();
  }
}

before(() => {
  tempRoot = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'loom-timeouts-'));
});
after(() => fs.rmSync(tempRoot, { recursive: true, force: true }));

for (const [kind, start] of [
  ['local', localServer],
  ['hosted', hostedServer],
] as const) {
  describe(`${kind} server: timeouts`, () => {
    let server: Server;
    before(async () => {
      // Wide enough that a request sent at once is read in time on a loaded machine.
      server = await start({ headersTimeoutMs: 1500, requestTimeoutMs: 2000, keepAliveTimeoutMs: 500 });
    });
    after(() => server.close());

    it('answers 408 REQUEST_TIMEOUT to headers that never finish, and closes the connection', async () => {
      const connection = await Connection.open(server.port);
      connection.send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}X-Slow: `);
      await connection.closedByServer();
      assert.deepEqual(connection.statuses(), [408]);
      assert.equal(server.code(connection.lastBody()).toLowerCase(), 'request_timeout');
    });

    it('closes a connection that never sends anything', async () => {
      const connection = await Connection.open(server.port);
      await connection.closedByServer();
      assert.deepEqual(connection.statuses(), [408]);
    });

    it('answers 408 to a body that never finishes, and closes the connection', async () => {
      const connection = await Connection.open(server.port);
      connection.send(`POST ${server.withBody} HTTP/1.1\r\n${server.credentials}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`);
      await connection.closedByServer();
      assert.deepEqual(connection.statuses(), [408]);
      assert.equal(server.code(connection.lastBody()).toLowerCase(), 'request_timeout');
    });

    it('closes an idle keep-alive connection after its answer', async () => {
      const connection = await Connection.open(server.port);
      connection.send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}\r\n`);
      await connection.closedByServer();
      assert.deepEqual(connection.statuses(), [200]);
    });
  });

  describe(`${kind} server: connections per client`, () => {
    // A server of its own for each test: no connection of another test is counted.
    const capped = async (t: { after(fn: () => Promise<void>): void }) => {
      const server = await start({ headersTimeoutMs: 1500, requestTimeoutMs: 2000, keepAliveTimeoutMs: 60_000, maxConnectionsPerClient: 3 });
      t.after(() => server.close());
      return server;
    };

    it("closes the client's oldest idle keep-alive connection to make room for a new one", async (t) => {
      const server = await capped(t);
      const idle: Connection[] = [];
      for (let i = 0; i < 3; i++)
        idle.push(await (await Connection.open(server.port)).send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}\r\n`).answered());
      const fourth = await (await Connection.open(server.port)).send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}\r\n`).answered();
      assert.deepEqual(fourth.statuses(), [200]);
      await idle[0]!.closedByServer();
      assert.equal(idle[1]!.closed || idle[2]!.closed, false, 'only the oldest made room');
      for (const connection of [...idle, fourth]) connection.destroy();
      await waitFor(() => idle.every((connection) => connection.closed), HANG_MS);
    });

    it('refuses a connection with 429 TOO_MANY_CONNECTIONS when none of the client’s is idle, until one ends', async (t) => {
      const server = await capped(t);
      const slow: Connection[] = [];
      for (let i = 0; i < 3; i++) slow.push((await Connection.open(server.port)).send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}X-Slow: `));
      // The refusal comes on connecting, before anything is sent.
      const refused = await (await Connection.open(server.port)).closedByServer();
      assert.deepEqual(refused.statuses(), [429]);
      assert.equal(server.code(refused.lastBody()).toLowerCase(), 'too_many_connections');
      // The slow ones run out of time; then the client is let in again.
      for (const connection of slow) await connection.closedByServer();
      const again = await (
        await Connection.open(server.port)
      )
        .send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}Connection: close\r\n\r\n`)
        .closedByServer();
      assert.deepEqual(again.statuses(), [200]);
    });
  });
}

describe('hosted server behind a trusted proxy', () => {
  it('does not cap the connections coming from the proxy: they carry many clients', async () => {
    const server = await hostedServer({ headersTimeoutMs: 5000, requestTimeoutMs: 5000, maxConnectionsPerClient: 1 }, { trustProxy: '127.0.0.1' });
    try {
      const held = [await Connection.open(server.port), await Connection.open(server.port)];
      held.forEach((connection) => connection.send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}X-Slow: `));
      const third = await (
        await Connection.open(server.port)
      )
        .send(`GET ${server.quick} HTTP/1.1\r\n${server.credentials}Connection: close\r\n\r\n`)
        .closedByServer();
      assert.deepEqual(third.statuses(), [200]);
      held.forEach((connection) => connection.destroy());
    } finally {
      await server.close();
    }
  });
});

describe('local server: a slow answer', () => {
  it('is not cut by the request timeout, which is about receiving the request', async (t) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const local = await startTestLocalApp({
      http: { headersTimeoutMs: 1500, requestTimeoutMs: 1500 },
      routes: (app) => app.get('/api/slow', async () => (await released, { done: true })),
    });
    t.after(() => local.close());
    const credentials = `Host: 127.0.0.1:${local.port}\r\nAuthorization: Bearer ${local.token}\r\n`;
    const slowAnswer = (await Connection.open(local.port)).send(`GET /api/slow HTTP/1.1\r\n${credentials}Connection: close\r\n\r\n`);
    // A request started after it has run out of time: so has the slow answer's request, by then.
    const late = (await Connection.open(local.port)).send(`GET /api/health HTTP/1.1\r\n${credentials}X-Slow: `);
    await late.closedByServer();
    assert.deepEqual(late.statuses(), [408]);
    assert.equal(slowAnswer.closed, false);
    release();
    await slowAnswer.closedByServer();
    assert.deepEqual(slowAnswer.statuses(), [200]);
    assert.deepEqual(JSON.parse(slowAnswer.lastBody()), { done: true });
  });
});
