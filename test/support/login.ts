// `loom login` run as a user runs it, for the CLI's sign-in tests: the real command in a child
// process, and a stand-in for the browser that follows the redirects up to its loopback
// callback (a CLI sign-in needs no cookie: its code is bound by PKCE).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { ROOT } from './cli.ts';

const BIN = path.join(ROOT, 'bin', 'loom.js');

export interface LoginRun {
  /** The URL printed on stderr ("Open this URL to sign in: …"). */
  url: URL;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  running(): boolean;
  stderr(): string;
}

/** Starts `loom login ARGS…` and resolves once it has printed the sign-in URL. */
export function startLogin(t: TestContext, args: string[], env: NodeJS.ProcessEnv): Promise<LoginRun> {
  const child = spawn(process.execPath, [BIN, 'login', '--no-browser', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited.then(() => undefined);
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /Open this URL to sign in: (\S+)/.exec(stderr);
      if (match) resolve({ url: new URL(match[1]!), exited, running: () => child.exitCode === null, stderr: () => stderr });
    });
    void exited.then(({ code }) => reject(new Error(`loom login exited (${code}) before printing a URL\nstdout: ${stdout}\nstderr: ${stderr}`)));
  });
}

/** What a browser does with the sign-in URL: follow redirects, then load the loopback callback. */
export async function browse(start: URL): Promise<{ callback: URL; page: Response }> {
  let next = start.toString();
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual' });
    assert.equal(response.status, 302, `${next}: ${await response.clone().text()}`);
    next = new URL(response.headers.get('location')!, next).toString();
    const url = new URL(next);
    if (url.pathname === '/callback' && url.hostname === '127.0.0.1') return { callback: url, page: await fetch(url) };
  }
  throw new Error('too many redirects');
}
