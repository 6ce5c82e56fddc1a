// `loom admin keys` refusing what it cannot do: one `loom: …` line on stderr, exit code 1 (2
// for settings that cannot work), no stack trace, nothing on stdout, nothing written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasStackTrace, runLoom } from '../support/cli.ts';
import { install } from '../support/install.ts';

describe('loom admin keys refusals', () => {
  it('refuses unknown users, scopes and ids, bad expiries and names, and a server address it cannot know', async (t) => {
    const site = (await install(t, 'sqlite'))!;
    assert.equal((await site.loom('admin', 'users', 'add', 'ada')).code, 0);
    const create = (...args: string[]) => ['admin', 'keys', 'create', ...args];
    // The usage errors, exit code 2; the rest are the command's refusals, exit code 1.
    const usage = new Set([create().join(' '), 'admin keys revoke']);
    const cases: [string[], RegExp][] = [
      [create('--user', 'nobody'), /^loom: no user "nobody"; loom admin users add makes a local one, loom admin users list shows them all$/],
      [create('--user', '00000000-0000-4000-8000-000000000000'), /^loom: no user "00000000-0000-4000-8000-000000000000"/],
      [create('--user', 'ada\x1b]52;c;aGk=\x07'), /^loom: no user "ada\\u001b\]52;c;aGk=\\u0007"/],
      [
        create('--user', 'ada', '--scope', 'openid'),
        /^loom: Cannot create the key: scopes not available to API keys: openid \(they take read:downloads read:models read:health write:feedback write:composer read:tab\)\.$/,
      ],
      [create('--user', 'ada', '--scope', 'read:tab,admin:everything'), /^loom: Cannot create the key: scopes not available to API keys: admin:everything /],
      [create('--user', 'ada', '--expires', 'never'), /^loom: API keys always expire, at the latest after 365d/],
      [create('--user', 'ada', '--expires', 'tomorrow'), /^loom: --expires takes 12h, 30d, an ISO date/],
      [create('--user', 'ada', '--expires', '400d'), /^loom: --expires 400d is out of range: from 1h to 365d from now$/],
      [create('--user', 'ada', '--name', 'x'.repeat(101)), /^loom: Cannot create the key: name must be 1 to 100 characters\.$/],
      [create('--user', 'ada', '--name', ' '), /^loom: Cannot create the key: name must be 1 to 100 characters\.$/],
      [create(), /^loom: required option '--user <user>' not specified; see loom admin keys create --help$/],
      [['admin', 'keys', 'list', '--user', 'nobody'], /^loom: no user "nobody"/],
      [
        ['admin', 'keys', 'revoke', '7f3c1a52-8a9e-4d2b-9c61-0f5e2b7d4a11'],
        /^loom: no API key "7f3c1a52-8a9e-4d2b-9c61-0f5e2b7d4a11"; loom admin keys list shows them$/,
      ],
      [['admin', 'keys', 'revoke', "' or 1=1 --"], /^loom: no API key "' or 1=1 --"/],
      [['admin', 'keys', 'revoke'], /^loom: missing required argument 'id'; see loom admin keys revoke --help$/],
    ];
    // Independent commands on one store: run together, as several operators might.
    const results = await Promise.all(cases.map(([args]) => site.loom(...args)));
    cases.forEach(([args, message], i) => {
      const result = results[i]!;
      const what = args.join(' ');
      assert.equal(result.code, usage.has(what) ? 2 : 1, `${what}: ${result.stderr}`);
      assert.equal(result.stdout, '', what);
      assert.equal(result.stderr.split('\n').length, 2, `${what}: one line, got ${JSON.stringify(result.stderr)}`);
      assert.match(result.stderr.trimEnd(), message, what);
      assert.ok(!hasStackTrace(result.stderr) && !/[\x07\x1b]/.test(result.stderr), what);
    });

    // With port 0 the server's address exists only once it listens: a key cannot name it.
    const portZero = await runLoom(create('--user', 'ada'), { ...site.env, LOOM_HOSTED_PORT: '0' });
    assert.equal(portZero.code, 2, portZero.stderr);
    assert.equal(
      portZero.stderr,
      "loom: With port 0 the server's address is known only once it listens: give the URL its clients use with --public-url (LOOM_PUBLIC_URL).\n",
    );

    assert.deepEqual(JSON.parse((await site.loom('admin', 'keys', 'list', '--json')).stdout), [], 'no key was made');
  });
});
