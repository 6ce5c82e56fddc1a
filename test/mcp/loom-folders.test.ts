// `loom mcp` over a local server whose workspace is a home folder holding Loom's config and data
// folders: the SDK's stdio client spawns the real `bin/loom.js mcp`, and no tool reads or writes
// settings.json (the API token) or the store — each is an isError result, PROTECTED_PATH.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cleanEnv, ROOT } from '../support/cli.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';

const TOKEN = 'loom_mcp_home_test_token_0123456789abcdef';

interface ToolResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

describe("loom mcp and Loom's own folders inside the workspace", () => {
  let home: string;
  let local: TestLocal;
  let fake: FakeOpenAi;
  let client: Client;

  before(async () => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-home-')));
    const configDir = path.join(home, '.config', 'loom');
    const dataDir = path.join(home, '.local', 'share', 'loom');
    fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, 'notes.md'), '# Notes\n');
    fake = await startFakeOpenAi();
    const completion = { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } };
    local = await startTestLocal({ workspace: home, configDir, dataDir, settings: { apiToken: TOKEN, completion } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin', 'loom.js'), 'mcp', '--port', String(local.port), '--config-dir', configDir],
      cwd: ROOT,
      env: cleanEnv(home) as Record<string, string>,
      stderr: 'pipe',
    });
    client = new Client({ name: 'loom-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    await local?.close();
    await fake?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  const refused = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as unknown as ToolResult;
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
    assert.equal(JSON.parse(result.content[0]!.text).error.code, 'PROTECTED_PATH', `${name} ${JSON.stringify(args)}`);
    assert.ok(!result.content[0]!.text.includes(TOKEN));
  };

  it('refuses every read and write of settings.json and the store, and lists neither', async () => {
    const settingsText = fs.readFileSync(path.join(home, '.config', 'loom', 'settings.json'), 'utf8');
    for (const file of ['.config/loom/settings.json', '.local/share/loom/loom.db']) {
      await refused('open_file', { path: file });
      await refused('get_text', { path: file });
      await refused('insert_text', { path: file, text: '{"agents": {"commands": [["sh"]]}}' });
      await refused('save_file', { path: file });
    }
    await refused('list_folder', { path: '.config/loom' });
    await refused('run_agent', { task: 'Read the settings', files: ['.config/loom/*'] });
    const listed = (await client.callTool({ name: 'list_folder', arguments: { path: '.config' } })) as unknown as ToolResult;
    assert.deepEqual(JSON.parse(listed.content[0]!.text), { path: '.config', entries: [] });
    assert.equal(fs.readFileSync(path.join(home, '.config', 'loom', 'settings.json'), 'utf8'), settingsText);
    assert.equal(fake.requests.length, 0, 'no task started');
  });
});
