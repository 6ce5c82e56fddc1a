// What Loom takes from the code host at sign-in (issue #16, item 1): the user from /user, and
// the email from /user/emails read as carefully as OpenID Connect's: only an address the code
// host marks verified joins an existing Loom user.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertErrorPage, cliSignIn } from '../../support/oauth.ts';

describe('sign-in through the code host: user and verified email', () => {
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  let subjects = 5000;
  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
  });

  /** A user who signed in earlier through another provider, with this verified email. */
  const existingUser = (email: string) =>
    hosted.identity.users.signIn({ provider: 'oidc', subject: `existing-${email}`, login: email.split('@')[0]!, name: null, email, emailVerified: true });

  it('joins an existing user through the primary verified address', async () => {
    const existing = await existingUser('ada1@example.com');
    codehost.signInAs({ id: subjects++, login: 'ada1', name: 'Ada', email: null, emails: [{ email: 'ada1@example.com', primary: true, verified: true }] });
    assert.equal((await cliSignIn(hosted, 'codehost')).claims!.sub, existing.id);
  });

  it('takes a verified secondary address when the primary one is not verified', async () => {
    const existing = await existingUser('ada2-work@example.com');
    codehost.signInAs({
      id: subjects++,
      login: 'ada2',
      name: null,
      email: 'ada2@example.com',
      emails: [
        { email: 'ada2@example.com', primary: true, verified: false },
        { email: 'ada2-work@example.com', primary: false, verified: true },
      ],
    });
    const { claims } = await cliSignIn(hosted, 'codehost');
    assert.equal(claims!.sub, existing.id);
  });

  it('prefers the primary verified address to another verified one', async () => {
    codehost.signInAs({
      id: subjects++,
      login: 'ada3',
      name: null,
      email: null,
      emails: [
        { email: 'ada3-old@example.com', primary: false, verified: true },
        { email: 'ada3@example.com', primary: true, verified: true },
      ],
    });
    assert.equal((await cliSignIn(hosted, 'codehost')).claims!.email, 'ada3@example.com');
  });

  it('never joins through an unverified address, but keeps the public one for display', async () => {
    const existing = await existingUser('ada4@example.com');
    codehost.signInAs({
      id: subjects++,
      login: 'ada4',
      name: 'Ada Four',
      email: 'ada4@example.com',
      emails: [{ email: 'ada4@example.com', primary: true, verified: false }],
    });
    const { claims } = await cliSignIn(hosted, 'codehost');
    assert.notEqual(claims!.sub, existing.id);
    assert.equal(claims!.email, 'ada4@example.com');
    assert.equal(claims!.name, 'Ada Four');
  });

  for (const status of [403, 404]) {
    it(`signs in without a verified email when /user/emails answers ${status} (no user:email grant)`, async (t: TestContext) => {
      const existing = await existingUser(`ada${status}@example.com`);
      codehost.behave('/api/user/emails', (_request, response) => response.writeHead(status, { 'content-type': 'text/html' }).end('<h1>no</h1>'));
      t.after(() => codehost.behave('/api/user/emails', undefined));
      codehost.signInAs({ id: subjects++, login: `ada${status}`, name: null, email: `ada${status}@example.com` });
      const { claims } = await cliSignIn(hosted, 'codehost');
      assert.ok(claims, 'signed in');
      assert.notEqual(claims.sub, existing.id, 'the public address of /user is not proof');
    });
  }

  it('shows the error page when the code host refuses the code (GitHub says so with status 200)', async (t) => {
    codehost.behave('/login/oauth/access_token', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' })),
    );
    t.after(() => codehost.behave('/login/oauth/access_token', undefined));
    const { callback } = await cliSignIn(hosted, 'codehost');
    assert.match(await assertErrorPage(callback, 400), /refused the sign-in \(bad_verification_code: The code passed is incorrect or expired\.\)/);
  });
});
