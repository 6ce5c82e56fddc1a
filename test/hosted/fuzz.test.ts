// A seeded property-based fuzz of every hosted operation, generated from the server's own
// /openapi.json: valid and invalid input, odd spellings, methods, headers and bodies. Every
// answer must be a status the operation documents (or a universal one) in the documented shape,
// never a 5xx; a refused request must leave every row of the store as it was.
// Replay a failure with LOOM_FUZZ_SEED=<seed> (printed on failure); LOOM_FUZZ_RUNS sends more.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { ALL_SCOPES } from '../../src/contracts/auth.ts';
import { loadCatalog } from '../../src/core/catalog/load.ts';
import { ResponseChecker } from '../support/fuzz/check.ts';
import type { Identity } from '../support/fuzz/requests.ts';
import { fuzz, type Snapshot } from '../support/fuzz/run.ts';
import { targetsFromOpenApi } from '../support/fuzz/targets.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { registerClient, signedInUser, signInWithCode } from '../support/oauth.ts';
import { respond, startUpstream, type Upstream } from '../support/upstream.ts';

const BODY_LIMIT = 64 * 1024;

describe('hosted API fuzz', () => {
  let hosted: TestHosted;
  let upstream: Upstream;
  let database: Database.Database;
  const identities: Identity[] = [{ label: 'anonymous', headers: [] }];

  before(async () => {
    // Release checks go to a loopback code host that has every file: a 5xx here is never upstream's.
    upstream = await startUpstream();
    upstream.behave('/release', respond(200));
    const catalog = loadCatalog();
    for (const asset of catalog.products.flatMap((p) => p.assets)) asset.url = `${upstream.url}/release`;
    hosted = await startTestHosted({
      catalog,
      rateLimit: { max: 1_000_000, windowSeconds: 60 },
      bodyLimit: BODY_LIMIT,
      // Sign-in starts redirect to a code host without calling it.
      codehost: { url: 'http://127.0.0.1:9/codehost', apiUrl: 'http://127.0.0.1:9/codehost/api' },
    });
    const { client } = await registerClient(hosted, { scopes: ALL_SCOPES });
    const session = await signedInUser(hosted, 'fuzz@example.com');
    const every = await signInWithCode(hosted, client, ALL_SCOPES.join(' '), session.cookie);
    const narrow = await signInWithCode(hosted, client, 'openid', session.cookie);
    const { key } = await hosted.identity.apiKeys.create(session.user.id, { name: 'fuzz', expiresInDays: 1 });
    identities.push(
      { label: 'an OAuth token with every scope', headers: [['Authorization', `Bearer ${every.access_token}`]] },
      { label: 'an OAuth token with only openid', headers: [['Authorization', `Bearer ${narrow.access_token}`]] },
      { label: 'an API key', headers: [['Authorization', `Bearer ${key}`]] },
      { label: 'a forged token', headers: [['Authorization', `Bearer ${every.access_token.slice(0, -4)}AAAA`]] },
      { label: 'a malformed Authorization', headers: [['Authorization', 'Bearer']] },
      { label: 'two tokens', headers: [['Authorization', `Bearer ${key} ${key}`]] },
      { label: 'Basic junk', headers: [['Authorization', 'Basic !!!not-base64']] },
      { label: 'Basic credentials of no client', headers: [['Authorization', `Basic ${Buffer.from('nobody:nothing').toString('base64')}`]] },
      { label: 'an unknown scheme', headers: [['Authorization', 'Digest username="x"']] },
      { label: 'another Host', headers: [['Host', 'evil.example']] },
      { label: 'an empty Host', headers: [['Host', '']] },
    );
    database = new Database(hosted.store.location, { readonly: true, fileMustExist: true });
  });
  after(async () => {
    database?.close();
    await hosted?.close();
    await upstream?.close();
  });

  /** Every row of every table, one fingerprint per table. */
  async function snapshot(): Promise<Snapshot> {
    const tables = database.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[];
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        createHash('sha256')
          .update(JSON.stringify(database.prepare(`select * from "${name}"`).all()))
          .digest('hex'),
      ]),
    );
  }

  /** The fuzz of every operation of the server's own /openapi.json. */
  async function fuzzHosted(options: { malformed: boolean; runs: number }) {
    const document = (await (await fetch(`${hosted.url}/openapi.json`)).json()) as { servers: { url: string }[]; components: { schemas: { Error: object } } };
    const targets = targetsFromOpenApi(document);
    assert.ok(targets.length >= 9, 'every operation of the document');
    const catalog = loadCatalog();
    const result = await fuzz({
      name: options.malformed ? 'hosted (malformed HTTP)' : 'hosted',
      port: Number(new URL(hosted.url).port),
      targets,
      server: {
        baseHeaders: [['Host', new URL(hosted.url).host]],
        // The document's servers, and the deprecated unversioned alias its description names.
        prefixes: [...document.servers.map((server) => new URL(server.url).pathname), '/api'],
        identities,
        extraHeaders: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom<[string, string]>(['API-Version', 'v1'], ['API-Version', 'v2']) },
          {
            weight: 1,
            arbitrary: fc.constantFrom<[string, string]>(['API-Version', 'v9'], ['API-Version', ''], ['API-Version', ' V1 '], ['API-Version', 'v1, v2']),
          },
        ),
        bodyLimit: BODY_LIMIT,
        hints: {
          asset: fc.constantFrom(...catalog.products.flatMap((p) => p.assets.map((a) => a.key)), 'solaris-sparc', '..', '%2e%2e'),
          email: fc.constantFrom('ada@example.com', 'zoë@exämple.com', 'a@b.co'),
          grant_type: fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit'),
          scope: fc.subarray([...ALL_SCOPES, 'admin', 'read:everything']).map((scopes) => scopes.join(' ')),
          return_to: fc.constantFrom('/dashboard', '//evil.example', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)'),
          redirect_uri: fc.constantFrom('http://127.0.0.1:1234/callback', 'https://evil.example/cb', 'javascript:x'),
          client_id: fc.constantFrom('loom-cli', 'nobody'),
        },
      },
      checker: new ResponseChecker({
        api: 'hosted',
        errorSchema: document.components.schemas.Error,
        // No model that can chat is set up here: a valid composer request (attachments, so no
        // workspace is needed) is refused with that, documented, as it should be.
        // test/hosted/composer.test.ts runs sessions with a scripted model.
        unavailable: new Set(['model_unavailable']),
      }),
      snapshot,
      runs: options.runs,
      malformed: options.malformed,
    });
    assert.equal((await fetch(`${hosted.url}/api/v1/health`)).status, 200, 'still serving');
    return result;
  }

  it('answers every request with a documented status in the documented shape, and a refusal changes nothing', async (t) => {
    const result = await fuzzHosted({ malformed: false, runs: 400 });
    t.diagnostic(`seed ${result.seed}, ${result.runs} requests, answers ${JSON.stringify(Object.fromEntries(result.statuses))}`);
    assert.ok(result.statuses.size > 3, `a spread of answers: ${JSON.stringify([...result.statuses])}`);
  });

  it('answers malformed HTTP in the Error shape too, and changes nothing', async (t) => {
    const result = await fuzzHosted({ malformed: true, runs: 60 });
    t.diagnostic(`seed ${result.seed}, ${result.runs} requests, answers ${JSON.stringify(Object.fromEntries(result.statuses))}`);
  });
});

describe('found by the hosted fuzz', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted();
  });
  after(() => hosted.close());

  it('a body in a content type the operation does not take is 415, whatever it holds', async () => {
    // The form body of the token endpoint sent as JSON was a JSON parse error (400 invalid_json).
    const form = await fetch(`${hosted.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(form.status, 415);
    assert.equal(((await form.json()) as { error: string }).error, 'unsupported_media_type');
    const json = await fetch(`${hosted.url}/api/v1/feedback`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":' });
    assert.equal(json.status, 415);
  });

  it('the body of a request refused for its credentials is not read: 401, not a parse error', async () => {
    const res = await fetch(`${hosted.url}/api/v1/tab/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prefix":' });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: string }).error, 'unauthorized');
  });
});
