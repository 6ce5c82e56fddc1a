// `loom complete FILE:LINE:COL` as a user runs it: the real CLI, the builtin model trained on
// the workspace, and clear failures.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cleanEnv, runLoom, tempDir } from '../support/cli.ts';

const handler = (name: string) =>
  `export function handle${name}(event: Event) {\n  logger.info('handling', { type: event.type, id: event.id, at: Date.now() });\n}\n`;

describe('loom complete', () => {
  it('prints the completion at a cursor, from the builtin model trained on the workspace', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'handlers.ts'), ['Click', 'Scroll', 'Resize'].map(handler).join('\n'));
    const file = path.join(workspace, 'src', 'new.ts');
    fs.writeFileSync(file, 'export function handleDrag(event: Event) {\n  logger.info(\n}\n');
    const env = cleanEnv(home);
    const result = await runLoom(['complete', `${file}:2:15`, '--workspace', workspace], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "'handling', { type: event.type, id: event.id, at: Date.now() });\n");

    const json = await runLoom(['complete', `${file}:2:15`, '--workspace', workspace, '--json'], env);
    const body = JSON.parse(json.stdout);
    assert.equal(body.model, 'builtin');
    assert.ok(body.tokens > 0 && Number.isInteger(body.latencyMs));
  });

  it('fails clearly on a bad cursor, a missing file and an unknown model', async (t) => {
    const home = tempDir(t);
    const file = path.join(home, 'a.ts');
    fs.writeFileSync(file, 'let a = 1;\n');
    const env = cleanEnv(home);
    const usage = await runLoom(['complete', file], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /FILE:LINE:COL/);
    const outside = await runLoom(['complete', `${file}:1:40`, '--workspace', home], env);
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /column 40 is outside 1\.\.11/);
    const missing = await runLoom(['complete', `${home}/nope.ts:1:1`, '--workspace', home], env);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `loom: there is no file ${home}/nope.ts; FILE:LINE:COL names a file from the current folder\n`);
    const unknown = await runLoom(['complete', `${file}:1:5`, '--workspace', home, '--model', 'gpt-9'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /does not serve the model "gpt-9".*builtin/);
    const gguf = await runLoom(['complete', `${file}:1:5`, '--workspace', home, '--gguf-model', `${home}/missing.gguf`, '--completion-provider', 'gguf'], env);
    assert.equal(gguf.code, 1);
    assert.match(gguf.stderr, /missing\.gguf/);
    assert.doesNotMatch(gguf.stderr + unknown.stderr, /\n\s+at /, 'no stack trace');
  });
});
