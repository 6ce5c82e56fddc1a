// `loom up` in this process, as its command wires it (the local server, then the hosted API
// beside it: startHostedBeside), on a fresh git workspace whose files are committed, with the
// desktop app's settings.json naming the token and an OpenAI-compatible model. Code index and
// language servers off: the tests that use this are about composer and the window.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHostedBeside } from '../../src/cli/commands/up.ts';
import type { RunningHosted } from '../../src/hosted/server.ts';
import { startLocal, type RunningLocal } from '../../src/local/server.ts';
import { testConfig } from './config.ts';

export interface TestUp {
  /** The folder holding the workspace (`app`), the config and the data folders. */
  home: string;
  workspace: string;
  local: RunningLocal;
  hosted: RunningHosted;
  /** Runs git in the workspace, as Ada. */
  git(...args: string[]): Buffer;
  /** Closes both servers and removes `home`. */
  close(): Promise<void>;
}

/**
 * Starts both servers on a workspace holding `files`, committed on `main`.
 *
 * @example
 *   const up = await startTestUp({ files: { 'src/add.ts': ADD }, apiToken: TOKEN, openAiBaseUrl: fake.baseUrl });
 *   await fetch(`${up.local.url}/api/composer/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
 *   await up.close();
 */
export async function startTestUp(options: { files: Record<string, string>; apiToken: string; openAiBaseUrl: string }): Promise<TestUp> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-test-up-'));
  const workspace = path.join(home, 'app');
  for (const [file, text] of Object.entries(options.files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace, file), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd: workspace, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  const configDir = path.join(home, 'config');
  const dataDir = path.join(home, 'data');
  fs.mkdirSync(configDir);
  fs.mkdirSync(dataDir);
  fs.writeFileSync(
    path.join(configDir, 'settings.json'),
    JSON.stringify({ apiToken: options.apiToken, completion: { openai: { baseUrl: options.openAiBaseUrl, model: 'fake-coder', fim: 'off' } } }),
    { mode: 0o600 },
  );
  const config = testConfig(dataDir, {
    workspace,
    configDir,
    dataDir,
    local: { port: 0 },
    hosted: { port: 0, host: '127.0.0.1' },
    logLevel: 'silent',
    codeIndex: { background: 'off' },
    languageServers: { enabled: 'off' },
  });
  const local = await startLocal(config);
  const hosted = await startHostedBeside(config, local).catch(async (error: unknown) => {
    await local.close();
    throw error;
  });
  return {
    home,
    workspace,
    local,
    hosted,
    git,
    close: async () => {
      await local.close();
      await hosted.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
