// Text that came from outside never reaches the operator's terminal raw. The real `loom`, run as a
// user runs it, prints hostile feedback, client names, catalog entries, a model's completion,
// names from an identity provider and a server's error message: no control character a terminal
// would act on (C0 but tab and newline, a lone CR, DEL, C1 such as CSI U+009B) and no bidi
// override is printed; they show escaped, and every field stays on its own line. --json stays
// valid JSON that parses back to the same text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { FeedbackRecord } from '../../src/core/feedback/feedback.ts';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, runLoom, tempDir } from '../support/cli.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';

/** Clears the screen, writes the clipboard (OSC 52), rings, colours through an 8-bit CSI, fakes a line, reverses text. */
const HOSTILE = 'Eve\x1b[2J\x1b]52;c;ZXZpbA==\x07\u009b31m\r\nroot  logged in\rX\u202eevil\x7f\x00';
/** The same, as `loom` shows it inside one line. */
const SHOWN = 'Eve\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x9b31m\\x0d\\x0aroot  logged in\\x0dX\\u202eevil\\x7f\\x00';
/** Anything a terminal would act on, or that reorders text. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|\r(?!\n)/u;

function assertSafe(output: { stdout: string; stderr: string }): void {
  assert.doesNotMatch(output.stdout, UNSAFE, `stdout: ${JSON.stringify(output.stdout)}`);
  assert.doesNotMatch(output.stderr, UNSAFE, `stderr: ${JSON.stringify(output.stderr)}`);
}

/** A small HTTP server on loopback answering every request with `status` and `body` (JSON). */
async function answering(t: TestContext, status: number, body: unknown): Promise<string> {
  const server = http.createServer((_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe('CLI output of text from outside', () => {
  it('loom admin feedback list: escaped fields on their own lines; --json parses back to the same text', async (t) => {
    const home = tempDir(t);
    const dataDir = path.join(home, 'data');
    const record: FeedbackRecord = {
      id: '33333333-3333-4333-8333-333333333333',
      name: HOSTILE,
      email: 'eve@example.com\x1b[8m',
      subject: `Subject ${HOSTILE}`,
      message: `first line\n${HOSTILE}\n\ttabbed`,
      createdAt: '2026-01-03T00:00:00.000Z',
      clientIp: '127.0.0.1',
      userAgent: HOSTILE,
    };
    const store = await openStore({ dataDir });
    await store.feedback.add(record);
    await store.close();
    const env = cleanEnv(home);

    const text = await runLoom(['admin', 'feedback', 'list', '--data-dir', dataDir], env);
    assert.equal(text.code, 0, text.stderr);
    assertSafe(text);
    assert.equal(
      text.stdout,
      `2026-01-03T00:00:00.000Z  ${record.id}  ${SHOWN} <eve@example.com\\x1b[8m>\n` +
        `  Subject ${SHOWN}\n` +
        `  first line\n` +
        // The message keeps its lines (each indented) and tabs; its lone CR and controls are escaped.
        `  Eve\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x9b31m\n  root  logged in\\x0dX\\u202eevil\\x7f\\x00\n` +
        `  \ttabbed\n\n`,
    );

    const json = await runLoom(['admin', 'feedback', 'list', '--data-dir', dataDir, '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assertSafe(json);
    assert.deepEqual(JSON.parse(json.stdout), [record]);
  });

  it('loom admin clients add and list: a hostile client name is escaped, the table still lines up', async (t) => {
    const home = tempDir(t);
    const env = cleanEnv(home);
    const dataDir = path.join(home, 'data');
    const added = await runLoom(['admin', 'clients', 'add', '--name', 'ci\x1b[2Jbot\u202e', '--data-dir', dataDir], env);
    assert.equal(added.code, 0, added.stderr);
    assertSafe(added);
    assert.match(added.stdout, /^Registered confidential client "ci\\x1b\[2Jbot\\u202e"\.\n/);

    const listed = await runLoom(['admin', 'clients', 'list', '--data-dir', dataDir], env);
    assert.equal(listed.code, 0, listed.stderr);
    assertSafe(listed);
    const [header, cli, ci] = listed.stdout.trimEnd().split('\n');
    assert.ok(cli!.startsWith('loom-cli'));
    assert.match(ci!, /ci\\x1b\[2Jbot\\u202e$/);
    assert.equal(ci!.indexOf('confidential'), header!.indexOf('TYPE'), 'columns line up');

    const json = await runLoom(['admin', 'clients', 'list', '--data-dir', dataDir, '--json'], env);
    assertSafe(json);
    assert.equal(JSON.parse(json.stdout)[1].name, 'ci\x1b[2Jbot\u202e');
  });

  it('loom models list: catalog text is escaped in the table and in JSON', async (t) => {
    const home = tempDir(t);
    const catalog = path.join(home, 'catalog.json');
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        products: [],
        models: [{ name: 'Evil\x1b]52;c;eA==\x07Coder', provider: 'Test\u009b2J', params: '1B\r', url: 'https://example.com/evil' }],
      }),
    );
    const env = cleanEnv(home, { LOOM_CATALOG: catalog, LOOM_MODELS_DIR: path.join(home, 'models') });
    const table = await runLoom(['models', 'list'], env);
    assert.equal(table.code, 0, table.stderr);
    assertSafe(table);
    assert.match(table.stdout, /^Evil\\x1b\]52;c;eA==\\x07Coder +1B\\x0d +- /m);
    const json = await runLoom(['models', 'list', '--json'], env);
    assertSafe(json);
    const [model] = JSON.parse(json.stdout);
    assert.equal(model.name, 'Evil\x1b]52;c;eA==\x07Coder');
    assert.equal(model.provider, 'Test\u009b2J');
  });

  it('loom complete: what a model wrote keeps its tabs, anything else is escaped', async (t) => {
    const home = tempDir(t);
    // A prompt-injected model: moves up a line, erases it, and writes over it.
    const openai = await startFakeOpenAi({ fimText: 'a + b;\t\x1b[1A\x1b[2K\rrm -rf ~\u202e\u009b0m' });
    t.after(() => openai.close());
    const file = path.join(home, 'add.ts');
    fs.writeFileSync(file, 'export function add(a: number, b: number) {\n  return \n}\n');
    const env = cleanEnv(home, { LOOM_OPENAI_BASE_URL: openai.baseUrl, LOOM_OPENAI_MODEL: 'fake-coder' });
    const text = await runLoom(['complete', `${file}:2:10`, '--workspace', home, '--model', 'openai'], env);
    assert.equal(text.code, 0, text.stderr);
    assertSafe(text);
    assert.equal(text.stdout, 'a + b;\t\\x1b[1A\\x1b[2K\\x0drm -rf ~\\u202e\\x9b0m\n');
    const json = await runLoom(['complete', `${file}:2:10`, '--workspace', home, '--model', 'openai', '--json'], env);
    assertSafe(json);
    assert.equal(JSON.parse(json.stdout).completion, 'a + b;\t\x1b[1A\x1b[2K\rrm -rf ~\u202e\u009b0m');
  });

  it('loom whoami: names from the identity provider are escaped, in text and JSON', async (t) => {
    const home = tempDir(t);
    const server = 'http://127.0.0.1:9';
    const configDir = path.join(home, 'config', 'loom');
    fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const claims = { sub: 'user-1', preferred_username: 'eve\x1b[2J', name: `Eve ${HOSTILE}`, email: 'eve@example.com\u202e' };
    fs.writeFileSync(
      path.join(configDir, 'credentials.json'),
      JSON.stringify({
        servers: {
          [server]: {
            access_token: jwt({ sub: 'user-1' }),
            id_token: jwt(claims),
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
            scope: 'openid profile email',
            token_endpoint: `${server}/auth/token`,
            issuer: server,
          },
        },
      }),
      { mode: 0o600 },
    );
    const env = cleanEnv(home);
    // Nothing listens on port 9: the stored sign-in is shown unchecked.
    const text = await runLoom(['whoami', '--server', server], env);
    assert.equal(text.code, 0, text.stderr);
    assertSafe(text);
    assert.equal(text.stdout.split('\n')[0], `Signed in to ${server} as eve\\x1b[2J (Eve ${SHOWN} <eve@example.com\\u202e>)`);
    const json = await runLoom(['whoami', '--server', server, '--json'], env);
    assertSafe(json);
    assert.equal(JSON.parse(json.stdout).name, claims.name);
  });

  it("an error that quotes a server's message is one escaped line on stderr", async (t) => {
    const home = tempDir(t);
    const tokenEndpoint = await answering(t, 400, { error: 'invalid_request', error_description: `bad\x1b]52;c;cm0gLXJm\x07\n${HOSTILE}` });
    const server = 'http://127.0.0.1:9';
    const configDir = path.join(home, 'config', 'loom');
    fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(configDir, 'credentials.json'),
      JSON.stringify({
        servers: {
          [server]: {
            access_token: jwt({ sub: 'user-1' }),
            refresh_token: 'refresh',
            expires_at: '2000-01-01T00:00:00.000Z',
            scope: 'openid',
            token_endpoint: `${tokenEndpoint}/auth/token`,
            issuer: server,
          },
        },
      }),
      { mode: 0o600 },
    );
    const result = await runLoom(['whoami', '--server', server], cleanEnv(home));
    assert.equal(result.code, 1);
    assertSafe(result);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, `loom: cannot refresh the sign-in to ${server}: invalid_request: bad\\x1b]52;c;cm0gLXJm\\x07\\x0a${SHOWN}\n`);
  });
});
