// Runs the real `loom` command (bin/loom.js) as a child process, with an environment that
// holds none of the developer's Loom, database or Redis settings and no real config file.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'loom.js');

/** A temporary folder removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'loom-cli-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The parent's environment minus every LOOM_* setting, DATABASE_URL and REDIS_URL, with the
 * user folders pointed into `home` so that no real config file or data dir is found.
 */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('LOOM_') || name.startsWith('NODE_TEST') || name === 'DATABASE_URL' || name === 'REDIS_URL') continue;
    env[name] = value;
  }
  return {
    ...env,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    APPDATA: path.join(home, 'config'),
    LOCALAPPDATA: path.join(home, 'data'),
    ...extra,
  };
}

export interface LoomResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `loom ARGS…` to completion. */
export function runLoom(args: string[], env: NodeJS.ProcessEnv): Promise<LoomResult> {
  return run(process.execPath, [BIN, ...args], env);
}

/**
 * cleanEnv with `loom` on the PATH: a link to bin/loom.js in `home`/bin, as `npm link` (or a
 * global install) makes, so that a shell or runInstalled finds the command by its name.
 */
export function installedEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const bin = path.join(home, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(BIN, path.join(bin, 'loom'));
  return cleanEnv(home, { ...extra, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
}

/** Runs `loom ARGS…` by its name, found on the PATH of `env` (installedEnv), as a user's shell does. */
export function runInstalled(args: string[], env: NodeJS.ProcessEnv): Promise<LoomResult> {
  return run('loom', args, env);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<LoomResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface RunningLoom {
  /** `http://127.0.0.1:PORT`, read from the line the server prints once it listens. */
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

/** The line `loom hosted` prints once it listens, its URL captured. */
const HOSTED_READY = /Loom hosted API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/;
/** The line `loom serve` prints once it listens, its URL captured. */
export const LOCAL_READY = /Loom local API\s+(http:\/\/127\.0\.0\.1:\d+)\/api/;

/**
 * Starts `loom hosted ARGS…` (or another server command) and resolves once it prints its URL
 * (`ready` captures it). The process is killed when the test ends, if it is still running. The
 * time limit only guards against a hang: a start under heavy load (tsx compiling on a busy
 * 2-core machine) can take a minute.
 */
export function startLoom(t: TestContext, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000, ready = HOSTED_READY): Promise<RunningLoom> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited.then(() => undefined);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`loom ${args.join(' ')} printed no URL within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = ready.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, exited, stdout: () => stdout, stderr: () => stderr });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`loom ${args.join(' ')} exited (code ${code}, signal ${signal}) before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

/** True when the text holds a JavaScript stack frame (`    at fn (file:line:col)`). */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+[:(]/m.test(text);
}

/**
 * A port nobody listens on now, for a server whose public URL must name its port before it
 * starts; the server may still lose it to another process (a test then tries another).
 *
 * @example env.LOOM_HOSTED_PORT = String(await unusedPort());
 */
export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
