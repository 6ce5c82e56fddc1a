// Starts the real local server (loom serve) on 127.0.0.1:0 with a temporary workspace and
// config folder, for tests that talk to it over HTTP and WebSocket.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ConnectionLimits } from '../../src/config/load.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { LogDestination } from '../../src/http/log-destination.ts';
import { startLocal, type RunningLocal } from '../../src/local/server.ts';
import { testConfig } from './config.ts';
import { COMPLETION_TIME_LIMIT_MS } from './wait.ts';

export interface TestLocal extends RunningLocal {
  clock: ManualClock;
  configDir: string;
  dataDir: string;
  /** Writes a file into the workspace. */
  write(relative: string, text: string): string;
  /** A request with the token (unless `headers.authorization` is given as ''), via node:http so Host can be set. */
  request(
    method: string,
    route: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any; text: string }>;
}

export interface TestLocalOptions {
  files?: Record<string, string>;
  settings?: Record<string, unknown>;
  /** Reuse these folders (a restart); they are then left in place on close. */
  workspace?: string;
  configDir?: string;
  dataDir?: string;
  /** The port to listen on (a restart keeps its window's cookie, named after the port); any free one by default. */
  port?: number;
  clock?: ManualClock;
  /** Timeouts and the connection cap; the config's defaults, but a cap that no test's burst of requests reaches unless it means to. */
  http?: Partial<ConnectionLimits>;
  /** Where the server logs, at level info; silent without it. */
  log?: LogDestination;
  /** Limits of the extension host (`extensions.*` settings). */
  extensions?: { commandTimeoutMs?: number; memoryLimitMb?: number };
  /**
   * Build the code index in the background (`codeIndex.background`). Off unless asked: its
   * `index:progress` events would interleave with what other tests count on the event stream.
   */
  codeIndex?: boolean;
  /**
   * Language servers (`languageServers.*` settings): off unless a test asks, so that the many
   * tests that open a .ts file do not each start tsserver on a shared machine.
   */
  languageServers?: { enabled?: 'on' | 'off'; requestTimeoutMs?: number; idleSeconds?: number; memoryLimitMb?: number };
}

export async function startTestLocal(options: TestLocalOptions = {}): Promise<TestLocal> {
  const workspace = options.workspace ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loom-ws-'));
  const configDir = options.configDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cfg-'));
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loom-data-'));
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  if (options.settings) fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify(options.settings), { mode: 0o600 });
  const clock = options.clock ?? new ManualClock();
  const config = testConfig(dataDir, {
    workspace,
    configDir,
    dataDir,
    local: { port: options.port ?? 0 },
    logLevel: options.log ? 'info' : 'silent',
    completion: { timeoutMs: COMPLETION_TIME_LIMIT_MS },
    http: { maxConnectionsPerClient: 1024, ...options.http },
    ...(options.extensions ? { extensions: options.extensions } : {}),
    codeIndex: { background: options.codeIndex ? 'on' : 'off' },
    languageServers: { enabled: 'off', ...options.languageServers },
  });
  const local = await startLocal(config, clock, { logDestination: options.log });
  return {
    ...local,
    clock,
    configDir,
    dataDir,
    write(relative, text) {
      const file = path.join(workspace, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
    request(method, route, body, headers = {}) {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const allHeaders: Record<string, string> = {
        host: `127.0.0.1:${local.port}`,
        authorization: `Bearer ${local.token()}`,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      };
      for (const [key, value] of Object.entries(allHeaders)) if (value === '') delete allHeaders[key];
      return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: local.port, method, path: route, headers: allHeaders }, (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => (text += chunk))
            .on('end', () => {
              let json: unknown;
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
              resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
            });
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
    async close() {
      await local.close();
      if (!options.configDir) fs.rmSync(configDir, { recursive: true, force: true });
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      if (!options.workspace) fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}
