// `loom admin users add|list` as an operator runs them, on SQLite and on PostgreSQL: local
// users (no code host), listed with the users who signed in through a provider.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UserDirectory } from '../../src/core/identity/users.ts';
import { hasStackTrace } from '../support/cli.ts';
import { BACKENDS, install } from '../support/install.ts';
import { openTestStore } from '../support/store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('loom admin users', () => {
  for (const backend of BACKENDS) {
    it(`adds local users, refuses a name taken in any letter case, lists them with those who signed in (${backend})`, async (t) => {
      const site = await install(t, backend);
      if (!site) return;
      assert.deepEqual(await site.loom('admin', 'users', 'list'), {
        code: 0,
        signal: null,
        stdout: 'No users yet. Add one: loom admin users add NAME\n',
        stderr: '',
      });

      const added = await site.loom('admin', 'users', 'add', 'ada', '--json');
      assert.equal(added.code, 0, added.stderr);
      assert.equal(added.stderr, '');
      const ada = JSON.parse(added.stdout);
      assert.deepEqual(Object.keys(ada), ['id', 'login', 'name', 'email', 'providers', 'createdAt']);
      assert.match(ada.id, UUID);
      assert.deepEqual({ ...ada, id: '', createdAt: '' }, { id: '', login: 'ada', name: null, email: null, providers: ['local'], createdAt: '' });

      for (const taken of ['ada', 'ADA']) {
        const again = await site.loom('admin', 'users', 'add', taken);
        assert.deepEqual(again, {
          code: 1,
          signal: null,
          stdout: '',
          stderr: `loom: a user named ${taken} exists already; loom admin users list shows them\n`,
        });
      }

      const text = await site.loom('admin', 'users', 'add', 'Grace.Hopper-1');
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        /^Added local user Grace\.Hopper-1 \(id [0-9a-f-]{36}\)\.\nGive it an API key: loom admin keys create --user Grace\.Hopper-1\n$/,
      );

      // Someone who signed in through the code host is a user too.
      const store = await openTestStore(t, site.storeOptions);
      const signedIn = await new UserDirectory(store.users).signIn({
        provider: 'codehost',
        subject: '42',
        login: 'linus',
        name: 'Linus',
        email: 'l@example.com',
        emailVerified: true,
      });
      await store.close();

      const listed = await site.loom('admin', 'users', 'list', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      const users = JSON.parse(listed.stdout);
      assert.deepEqual(
        users.map((u: { login: string; providers: string[] }) => [u.login, u.providers]),
        [
          ['ada', ['local']],
          ['Grace.Hopper-1', ['local']],
          ['linus', ['codehost']],
        ],
      );
      assert.deepEqual(users[0], ada);
      assert.equal(users[2].id, signedIn.id);
      assert.equal(users[2].email, 'l@example.com');

      const table = await site.loom('admin', 'users', 'list');
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^ID {36}PROVIDERS {2}CREATED {19}LOGIN$/);
      assert.match(lines[1]!, new RegExp(`^${ada.id}  local      ${ada.createdAt.replace(/\./g, '\\.')}  ada$`));
      assert.match(lines[3]!, new RegExp(`^${signedIn.id}  codehost   \\S{24}  linus$`));
    });
  }

  it('makes one user of two processes adding the same name at once', async (t) => {
    const site = await install(t, 'sqlite');
    const results = await Promise.all([site!.loom('admin', 'users', 'add', 'ada'), site!.loom('admin', 'users', 'add', 'Ada')]);
    assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], results.map((r) => r.stderr).join(''));
    assert.equal(JSON.parse((await site!.loom('admin', 'users', 'list', '--json')).stdout).length, 1);
  });

  it('refuses a bad name with one line on stderr and exit code 1, and writes nothing', async (t) => {
    const site = (await install(t, 'sqlite'))!;
    const bad = ['bad name', '_ada', '', 'a'.repeat(40), 'ada\x1b[2J', 'zoë', '$(id)'];
    for (const name of bad) {
      const result = await site.loom('admin', 'users', 'add', name);
      assert.equal(result.code, 1, `${JSON.stringify(name)}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^loom: ".*" is not a valid user name: 1 to 39 letters, digits, "\.", "_" or "-", starting with a letter or digit\.\n$/);
      assert.ok(!hasStackTrace(result.stderr));
      assert.ok(!result.stderr.includes('\x1b'), 'control characters are printed escaped');
    }
    const missing = await site.loom('admin', 'users', 'add');
    assert.equal(missing.code, 2, 'a usage error');
    assert.match(missing.stderr, /missing required argument 'name'/);
    assert.deepEqual(JSON.parse((await site.loom('admin', 'users', 'list', '--json')).stdout), []);
  });
});
