// `loom login` and the server's sign-in providers (issue #16, item 3): the server lists them in
// its metadata; login uses the only one, takes --provider, asks on a terminal, and says what to
// set when there is none — before any browser opens.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it, type TestContext } from 'node:test';
import { askProvider } from '../../src/cli/auth/providers.ts';
import { cleanEnv, runLoom, tempDir } from '../support/cli.ts';
import { startFakeCodeHost, type FakeCodeHost } from '../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { browse, startLogin } from '../support/login.ts';
import { startFakeOidc, type FakeOidc } from '../support/oidc.ts';

describe('loom login: which sign-in provider', () => {
  let codehost: FakeCodeHost;
  let oidc: FakeOidc;
  let oidcOnly: TestHosted;
  let both: TestHosted;
  let none: TestHosted;
  before(async () => {
    codehost = await startFakeCodeHost();
    oidc = await startFakeOidc();
    const oidcConfig = { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret };
    oidcOnly = await startTestHosted({ oidc: oidcConfig });
    both = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl }, oidc: oidcConfig });
    none = await startTestHosted();
  });
  after(async () => {
    await Promise.all([oidcOnly.close(), both.close(), none.close()]);
    await codehost.close();
    await oidc.close();
  });

  const env = (t: TestContext, extra: Record<string, string> = {}) => cleanEnv(tempDir(t), { LOOM_LOGIN_TIMEOUT_MS: '20000', ...extra });

  it('signs in to a server that has only OpenID Connect', async (t) => {
    const run = await startLogin(t, ['--server', oidcOnly.url], env(t));
    assert.equal(run.url.origin + run.url.pathname, `${oidcOnly.url}/api/v1/auth/oidc`);
    const { page } = await browse(run.url);
    assert.equal(page.status, 200);
    const result = await run.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Signed in to ${oidcOnly.url} as grace (Grace Hopper <grace@example.com>).\n`);
  });

  it('refuses --provider codehost on that server, naming what it offers, before any browser', async (t) => {
    const result = await runLoom(['login', '--server', oidcOnly.url, '--no-browser', '--provider', 'codehost'], env(t));
    assert.deepEqual(result, { code: 1, signal: null, stdout: '', stderr: `loom: ${oidcOnly.url} does not offer sign-in through codehost; it offers oidc\n` });
  });

  it('says in one line what to set when the server has no provider, before any browser', async (t) => {
    const result = await runLoom(['login', '--server', none.url, '--no-browser'], env(t));
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `loom: ${none.url} has no sign-in provider configured; its operator sets LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET, or LOOM_OIDC_ISSUER, LOOM_OIDC_CLIENT_ID and LOOM_OIDC_CLIENT_SECRET (docs/auth.md)\n`,
    );
  });

  it('asks for --provider when the server has several and there is no terminal to ask on', async (t) => {
    const result = await runLoom(['login', '--server', both.url, '--no-browser'], env(t));
    assert.deepEqual(result, {
      code: 2,
      signal: null,
      stdout: '',
      stderr: `loom: ${both.url} offers sign-in through codehost and oidc; choose one with --provider codehost|oidc\n`,
    });
  });

  it('signs in through the provider --provider names', async (t) => {
    const run = await startLogin(t, ['--server', both.url, '--provider', 'oidc'], env(t));
    assert.equal(run.url.pathname, '/api/v1/auth/oidc');
    await browse(run.url);
    const result = await run.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /as grace /);
  });

  describe('the question on a terminal', () => {
    async function ask(answers: string, providers = ['codehost', 'oidc'] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
      input.end(answers);
      try {
        return { chosen: await askProvider(input, output)([...providers]), shown: () => shown };
      } catch (error) {
        return { error: error as Error, shown: () => shown };
      }
    }

    it('lists the providers and takes a number, a name, or Enter for the first', async () => {
      const first = await ask('\n');
      assert.equal(first.chosen, 'codehost');
      assert.match(first.shown(), /1\) codehost: your code host .*\n {2}2\) oidc: single sign-on \(OpenID Connect\)/s);
      assert.equal((await ask('2\n')).chosen, 'oidc');
      assert.equal((await ask('OIDC\n')).chosen, 'oidc');
      assert.equal((await ask('7\nx\ncodehost\n')).chosen, 'codehost');
    });

    it('gives up, naming --provider, after three wrong answers or at the end of the input', async () => {
      assert.match((await ask('7\n8\n9\n')).error!.message, /no sign-in provider chosen; use --provider codehost\|oidc/);
      assert.match((await ask('')).error!.message, /no sign-in provider chosen/);
    });
  });
});
