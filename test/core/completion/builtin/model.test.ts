import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BuiltinModel } from '../../../../src/core/completion/builtin/index.ts';

/** A small module; two copies with other names make a project in which a line repeats. */
function userModule(name: string, table = 'users'): string {
  return [
    "import { connect } from './db.js';",
    '',
    `export async function ${name}(id) {`,
    `  const row = await connect().query('SELECT * FROM ${table} WHERE id = ?', [id]);`,
    '  return row;',
    '}',
    '',
  ].join('\n');
}

const QUERY = " = await connect().query('SELECT * FROM users WHERE id = ?', [id]);";

function trainedModel(): BuiltinModel {
  const model = new BuiltinModel();
  model.updateFile('src/load.js', userModule('loadUser'));
  model.updateFile('src/find.js', userModule('findUser'));
  return model;
}

describe('BuiltinModel', () => {
  it('completes a line it has seen in the project, to the end of the line', () => {
    const model = trainedModel();
    const suggestion = model.suggest({ prefix: 'export async function getUser(id) {\n  const row', suffix: '\n}\n' });
    assert.equal(suggestion.text, QUERY);
    assert.ok(suggestion.tokens > 5);
  });

  it('matches a string literal it never saw as any string literal in the context', () => {
    const names = ['billing', 'users', 'orders', 'audit'];
    const services = names.map((name) => `export const ${name}Service = createService({ name: '${name}', retries: 3, timeoutMs: 2500 });`).join('\n') + '\n';
    const model = new BuiltinModel();
    model.updateFile('src/services.ts', services);
    const prefix = "export const pushService = createService({ name: 'push', ";
    assert.equal(model.suggest({ prefix, suffix: '\n', filePath: 'src/push.ts' }).text, 'retries: 3, timeoutMs: 2500 });');
    assert.equal(model.suggest({ prefix: services + prefix, suffix: '\n' }).text, 'retries: 3, timeoutMs: 2500 });');
  });

  it('says nothing on a context it has never seen', () => {
    const model = trainedModel();
    assert.equal(model.suggest({ prefix: 'quux frobnicate zapp', suffix: '' }).text, '');
    assert.equal(model.suggest({ prefix: 'while (gizmo.wobble) {\n  splork', suffix: '' }).text, '');
  });

  it('never suggests past the end of the line', () => {
    const model = trainedModel();
    for (const prefix of ['export async function getUser(id) {\n  const row', "import { connect } from './db.js';\n"]) {
      assert.ok(!model.suggest({ prefix, suffix: '' }).text.includes('\n'));
    }
  });

  it('learns a file given by updateFile, and the new text when it is updated', () => {
    const model = new BuiltinModel();
    const prefix = 'export async function getUser(id) {\n  const row';
    assert.equal(model.suggest({ prefix, suffix: '' }).text, '');
    model.updateFile('a.js', userModule('a'));
    model.updateFile('b.js', userModule('b'));
    assert.equal(model.suggest({ prefix, suffix: '' }).text, QUERY);
    model.updateFile('a.js', userModule('a', 'accounts'));
    model.updateFile('b.js', userModule('b', 'accounts'));
    assert.equal(model.suggest({ prefix, suffix: '' }).text, QUERY.replace('users', 'accounts'));
  });

  it('forgets a removed file', () => {
    const model = trainedModel();
    const prefix = 'export async function getUser(id) {\n  const row';
    model.removeFile('src/load.js');
    model.removeFile('src/find.js');
    assert.equal(model.suggest({ prefix, suffix: '' }).text, '');
    assert.deepEqual({ files: model.stats().files, tokens: model.stats().tokens }, { files: 0, tokens: 0 });
  });

  it('completes from the current file alone (the request text), with no project', () => {
    const model = new BuiltinModel();
    const lines = ['emitter.on("ready", handleReadyEvent);', 'emitter.on("close", handleCloseEvent);'];
    const text = [...lines, ...lines, ...lines, ''].join('\n');
    const suggestion = model.suggest({ prefix: text + 'emitter.on("ready",', suffix: '\n' });
    assert.equal(suggestion.text, ' handleReadyEvent);');
    // The same without a file path: the request's text is all there is.
    assert.equal(model.suggest({ prefix: text + 'emitter.on("close",', suffix: '', filePath: undefined }).text, ' handleCloseEvent);');
  });

  it('uses the text after the cursor as part of the current file', () => {
    const model = new BuiltinModel();
    const prefix = 'import config from "./config.js";\n\nconfig.set("timeout",';
    const below = '\n' + 'config.set("timeout", DEFAULT_TIMEOUT_MS);\nconfig.set("retries", DEFAULT_RETRIES);\n'.repeat(3);
    assert.equal(model.suggest({ prefix, suffix: below, filePath: 'x.js' }).text, ' DEFAULT_TIMEOUT_MS);');
    // Without the text below, nothing says what comes.
    assert.equal(model.suggest({ prefix, suffix: '', filePath: 'x.js' }).text, '');
  });

  it('finishes the word at the cursor', () => {
    const model = new BuiltinModel();
    const line = 'this.connectionPool.release(connection);\n';
    const text = line.repeat(3) + 'this.connectionPool.rel';
    assert.equal(model.suggest({ prefix: text, suffix: '', filePath: 'pool.js' }).text, 'ease(connection);');
  });

  it('does not echo its own stale copy of the current file', () => {
    const model = new BuiltinModel();
    const text = userModule('only');
    model.updateFile('only.js', text);
    const cursor = text.indexOf('const row') + 'const row'.length;
    // The rest of the line is still there after the cursor: nothing to add.
    assert.equal(model.suggest({ prefix: text.slice(0, cursor), suffix: text.slice(cursor), filePath: 'only.js' }).text, '');
  });

  it('does not end with a closing bracket the text after the cursor already holds', () => {
    const model = trainedModel();
    const prefix = 'export async function getUser(id) {\n  const row = await connect().query(';
    const args = "'SELECT * FROM users WHERE id = ?', [id]";
    assert.equal(model.suggest({ prefix, suffix: '' }).text, args + ');');
    // The editor closed the parenthesis: the suggestion stops before it.
    assert.equal(model.suggest({ prefix, suffix: ');\n}' }).text, args);
    assert.equal(model.suggest({ prefix, suffix: ')' }).text, args);
  });

  it('respects the stop callback', () => {
    const model = trainedModel();
    const prefix = 'export async function getUser(id) {\n  const row';
    const seen: string[] = [];
    const suggestion = model.suggest({
      prefix,
      suffix: '',
      stop: (text) => {
        seen.push(text);
        const at = text.indexOf('(');
        return at < 0 ? undefined : at;
      },
    });
    assert.equal(suggestion.text, ' = await connect');
    // Called token by token, and not again once it said where to stop.
    assert.ok(seen.length >= 3);
    assert.equal(seen.filter((text) => text.includes('(')).length, 1);
  });

  it('honours maxTokens', () => {
    const model = trainedModel();
    const suggestion = model.suggest({ prefix: 'export async function getUser(id) {\n  const row', suffix: '', maxTokens: 3 });
    assert.equal(suggestion.text, ' = await connect');
    assert.equal(suggestion.tokens, 3);
  });

  it('reports its size', () => {
    const model = trainedModel();
    const stats = model.stats();
    assert.equal(stats.files, 2);
    assert.ok(stats.tokens > 50);
    assert.ok(stats.bytes > 0);
  });

  it('keeps the incremental file cache equal to a fresh one as the text changes', () => {
    const incremental = new BuiltinModel();
    const source = userModule('a') + '/* a comment\n   over lines */\n' + userModule('b') + 'const s = `x\n${y}`;\n' + userModule('c');
    const steps: number[] = [];
    for (let at = 0; at <= source.length; at += 7) steps.push(at);
    steps.push(source.length >> 1, 10, source.length); // jumps back and forth
    for (const at of steps) {
      const request = { prefix: source.slice(0, at), suffix: source.slice(at), filePath: 'same.js' };
      const fresh = new BuiltinModel().suggest(request);
      assert.deepEqual(incremental.suggest(request), fresh, `at ${at}`);
    }
  });
});
