// The local server (`startLocal`, the production wiring) set up for agent tasks: a workspace
// holding src/math.ts, settings.json naming the scripted OpenAI-compatible server, the event
// stream opened as a browser page opens it, the window signed in as the user's browser signs it
// in, and folders kept across a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import WebSocket from 'ws';
import { MATH } from '../core/agents/support.ts';
import { startTestLocal, type TestLocal } from './local.ts';
import { startFakeOpenAi, type FakeOpenAi } from './openai-fake.ts';
import { waitFor } from './wait.ts';

export const AGENT_TOKEN = 'loom_agents_test_token_0123456789abcdef';

export interface AgentLocal {
  local: TestLocal;
  fake: FakeOpenAi;
  /** A file of the workspace, or null when missing. */
  file(relative: string): string | null;
}

/** Folders kept across a restart (startTestLocal leaves folders it is given in place). */
export interface KeptDirs {
  workspace: string;
  configDir: string;
  dataDir: string;
}

/** The server with a workspace holding src/math.ts and settings.json naming the scripted server (and `settings` besides). */
export async function startAgentLocal(
  t: TestContext,
  options: { settings?: Record<string, unknown>; fake?: FakeOpenAi; dirs?: KeptDirs } = {},
): Promise<AgentLocal> {
  const fake = options.fake ?? (await startFakeOpenAi());
  if (!options.fake) t.after(() => fake.close());
  const files = { 'src/math.ts': MATH, '.git/config': '[core]\n' };
  const local = await startTestLocal({
    ...(options.dirs ?? { files }),
    settings: { apiToken: AGENT_TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } }, ...options.settings },
  });
  t.after(() => local.close());
  const file = (relative: string) => {
    const full = path.join(local.workspace, relative);
    return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
  };
  return { local, fake, file };
}

/** Folders for a workspace holding `files`, a config and a data dir, kept until the test ends. */
export function keptDirs(t: TestContext, files: Record<string, string>): KeptDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agents-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dirs = { workspace: path.join(root, 'ws'), configDir: path.join(root, 'config'), dataDir: path.join(root, 'data') };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { mode: 0o700 });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dirs.workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(dirs.workspace, name), text);
  }
  return dirs;
}

/** The /events stream, opened the way a browser page does: with a ticket. Its events, as they come. */
export async function openEvents(t: TestContext, local: TestLocal): Promise<any[]> {
  const { json } = await local.request('POST', '/api/events/ticket');
  const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events?ticket=${json.ticket}`);
  t.after(() => socket.terminate());
  const messages: any[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await waitFor(() => messages.length > 0, undefined, 'the hello');
  return messages;
}

/** The task's status once it is no longer running. */
export async function ended(local: TestLocal, taskId: string): Promise<any> {
  let status: any;
  await waitFor(
    async () => (status = (await local.request('GET', `/api/agent/status/${taskId}`)).json).status !== 'running',
    undefined,
    `the end of ${taskId}`,
  );
  return status;
}

/** Headers of a window's requests: its session cookie and CSRF value, no token. */
export type WindowHeaders = Record<string, string>;

/**
 * Signs a window in: `link` as `loom serve --open` does (a one-time code, the user at the
 * keyboard), or `token` as the sign-in form does (what anything holding the token can do too).
 */
export async function signInWindow(local: TestLocal, how: 'link' | 'token'): Promise<WindowHeaders> {
  const origin = `http://127.0.0.1:${local.port}`;
  const body = how === 'link' ? { code: new URL(local.signInLink()).searchParams.get('code')! } : { token: local.token() };
  const answer = await local.request('POST', '/api/session', body, { authorization: '', origin });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.text}`);
  return { authorization: '', origin, cookie: String(answer.headers['set-cookie']).split(';')[0]!, 'x-loom-csrf': answer.json.csrf };
}
