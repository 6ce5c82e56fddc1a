// The official MCP conformance runner (@modelcontextprotocol/conformance, pinned at 0.1.13: later
// versions need Node 22) against a real `loom hosted` on port 0: every server scenario it has,
// with conformance-baseline.yml naming those that do not apply to this server and why. The
// runner fails on a scenario that fails outside the baseline, and on one in the baseline that
// passes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { cleanEnv, startLoom, tempDir } from '../../support/cli.ts';

const RUNNER = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const BASELINE = fileURLToPath(new URL('./conformance-baseline.yml', import.meta.url));

/** The scenarios that apply to a real server without fixtures of their own; each must pass. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/** Runs the conformance CLI; resolves with its exit code and output (colours stripped). */
function conformance(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

describe('MCP conformance runner 0.1.13', () => {
  it('lists no scenario the baseline and the applicable ones leave out', async (t) => {
    const { code, output } = await conformance(['list', '--server'], tempDir(t));
    assert.equal(code, 0, output);
    const scenarios = [...output.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!);
    const baseline = (YAML.parse(fs.readFileSync(BASELINE, 'utf8')) as { server: string[] }).server;
    assert.deepEqual([...scenarios].sort(), [...APPLICABLE, ...baseline].sort());
  });

  it('passes every scenario that applies against a real `loom hosted`, and only the baseline fails', async (t) => {
    const home = tempDir(t);
    // The runner makes more requests in a minute than the default limit allows one client.
    const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', home, '--log-level', 'silent', '--rate-limit', '100000'], cleanEnv(home));
    const { code, output } = await conformance(['server', '--url', `${server.url}/mcp`, '--suite', 'all', '--expected-failures', BASELINE], home);
    assert.equal(code, 0, output);
    for (const scenario of APPLICABLE) assert.match(output, new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'm'), output);
    assert.match(output, /Baseline check passed/);
  });
});
