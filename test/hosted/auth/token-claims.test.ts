// docs/security.md, "Sign-in and tokens": access tokens are JWTs (typ at+jwt, ES256) with iss, sub, aud, exp,
// iat, jti, client_id and scope (RFC 9068); the resource server checks typ, iss, aud and exp,
// and of course the signature. Each forged token below differs from one that is accepted in
// exactly one respect.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import type { ClientRecord, UserRecord } from '../../../src/core/identity/records.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertError, bearerChallenge, getWith, registerClient, signedInUser, signInWithCode, tokenRequest, type Tokens } from '../../support/oauth.ts';

const SCOPE = 'openid read:models read:downloads';

describe('access tokens', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let user: UserRecord;
  let tokens: Tokens;
  let realKey: { kid: string; privateJwk: JWK; publicJwk: JWK };
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted));
    const session = await signedInUser(hosted);
    user = session.user;
    tokens = await signInWithCode(hosted, client, SCOPE, session.cookie);
    const [stored] = await hosted.store.signingKeys.list();
    realKey = { kid: stored!.kid, privateJwk: stored!.privateJwk as JWK, publicJwk: stored!.publicJwk as JWK };
  });
  after(() => hosted.close());

  describe('format', () => {
    it('is a JWT with typ at+jwt, alg ES256 and a kid', () => {
      const header = decodeProtectedHeader(tokens.access_token);
      assert.equal(header.typ, 'at+jwt');
      assert.equal(header.alg, 'ES256');
      assert.equal(typeof header.kid, 'string');
      assert.ok(header.kid!.length > 0);
      assert.equal(tokens.token_type, 'Bearer');
    });

    it('carries iss, sub, aud, exp, iat, jti, client_id and scope', () => {
      const claims = decodeJwt(tokens.access_token);
      for (const name of ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope']) assert.ok(claims[name] !== undefined, `claim ${name}`);
      assert.equal(claims.iss, hosted.url);
      assert.equal(claims.sub, user.id);
      assert.equal(claims.aud, hosted.url);
      assert.equal(claims.client_id, client.clientId);
      assert.equal(claims.scope, SCOPE);
      assert.equal(claims.iat, Math.floor(hosted.clock.now() / 1000));
      assert.equal(claims.exp! - claims.iat!, tokens.expires_in);
      assert.equal(typeof claims.jti, 'string');
    });

    it('has a fresh jti on every token', async () => {
      const again = await signInWithCode(hosted, client, SCOPE);
      assert.notEqual(decodeJwt(again.access_token).jti, decodeJwt(tokens.access_token).jti);
    });

    it('verifies against the JWKS published at /.well-known/jwks.json', async () => {
      const res = await fetch(`${hosted.url}/.well-known/jwks.json`);
      assert.equal(res.status, 200);
      const jwks = (await res.json()) as { keys: JWK[] };
      const kid = decodeProtectedHeader(tokens.access_token).kid;
      const key = jwks.keys.find((k) => k.kid === kid);
      assert.ok(key, 'the kid is in the JWKS');
      assert.equal(key.kty, 'EC');
      assert.equal(key.crv, 'P-256');
      assert.equal(key.alg, 'ES256');
      for (const k of jwks.keys)
        for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'])
          assert.equal((k as Record<string, unknown>)[secret], undefined, `no private ${secret} in the JWKS`);
      const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
        issuer: hosted.url,
        audience: hosted.url,
        typ: 'at+jwt',
        algorithms: ['ES256'],
        currentDate: new Date(hosted.clock.now()),
      });
      assert.equal(protectedHeader.kid, kid);
      assert.equal(payload.sub, user.id);
    });

    it('a client_credentials token names the client as sub and has the same form', async () => {
      const { client: service, clientSecret } = await registerClient(hosted, { type: 'confidential', grantTypes: ['client_credentials'], redirectUris: [] });
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: service.clientId, client_secret: clientSecret });
      const body = (await res.json()) as Tokens;
      assert.equal(decodeProtectedHeader(body.access_token).typ, 'at+jwt');
      const claims = decodeJwt(body.access_token);
      assert.equal(claims.sub, service.clientId);
      assert.equal(claims.client_id, service.clientId);
      assert.equal(claims.iss, hosted.url);
      assert.equal(claims.aud, hosted.url);
      for (const name of ['exp', 'iat', 'jti', 'scope']) assert.ok(claims[name] !== undefined, `claim ${name}`);
    });
  });

  describe('the resource server', () => {
    /** Signs `claims` with the service's own key (or another), with header overrides. */
    async function forge(claims: JWTPayload, header: Record<string, unknown> = {}, key: JWK = realKey.privateJwk): Promise<string> {
      const alg = (header.alg as string | undefined) ?? 'ES256';
      const privateKey = await importJWK(key, alg);
      return new SignJWT(claims).setProtectedHeader({ alg, typ: 'at+jwt', kid: realKey.kid, ...header } as never).sign(privateKey);
    }
    const realClaims = () => decodeJwt(tokens.access_token);

    async function assertRefused(token: string, expectedDescription?: RegExp) {
      for (const path of ['/api/v1/models', '/api/v1/download']) {
        const res = await getWith(hosted, path, token);
        const body = await assertError(res, 401, 'invalid_token');
        const challenge = bearerChallenge(res);
        assert.equal(challenge.error, 'invalid_token');
        assert.equal(challenge.resource_metadata, `${hosted.url}/.well-known/oauth-protected-resource`);
        if (expectedDescription) assert.match(String(body.message), expectedDescription);
      }
    }

    it('accepts the real token, and a token forged exactly like it (the baseline of every case below)', async () => {
      assert.equal((await getWith(hosted, '/api/v1/models', tokens.access_token)).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/models', await forge(realClaims()))).status, 200);
    });

    it('checks typ: a token signed with the same key but typ JWT is refused', async () => {
      const { iss, sub, aud, jti, client_id, scope, gid } = realClaims();
      await assertRefused(await hosted.identity.keys.sign({ iss, sub, aud, jti, client_id, scope, gid }, 'JWT', 3600));
    });

    it('checks typ: no typ, or another one, is refused', async () => {
      await assertRefused(await forge(realClaims(), { typ: undefined }));
      await assertRefused(await forge(realClaims(), { typ: 'id+jwt' }));
      await assertRefused(await forge(realClaims(), { typ: 'loom-api-key+jwt' }));
    });

    it('checks typ: the ID token (typ JWT, aud the client) is not an access token', async () => {
      assert.ok(tokens.id_token);
      await assertRefused(tokens.id_token);
    });

    it('checks iss', async () => {
      await assertRefused(await forge({ ...realClaims(), iss: 'https://evil.example.com' }));
      await assertRefused(await forge({ ...realClaims(), iss: `${hosted.url}/` }));
      const { iss: _iss, ...withoutIss } = realClaims();
      await assertRefused(await forge(withoutIss));
    });

    it('checks aud', async () => {
      await assertRefused(await forge({ ...realClaims(), aud: 'https://other-api.example.com' }));
      await assertRefused(await forge({ ...realClaims(), aud: client.clientId }));
      const { aud: _aud, ...withoutAud } = realClaims();
      await assertRefused(await forge(withoutAud));
    });

    it('checks exp: a token without exp is refused', async () => {
      const { exp: _exp, ...withoutExp } = realClaims();
      await assertRefused(await forge(withoutExp));
    });

    it('checks exp: a token past its exp is refused (as expired)', async () => {
      const past = realClaims();
      await assertRefused(await forge({ ...past, exp: Math.floor(hosted.clock.now() / 1000) - 1 }), /expired/);
    });

    it('checks the signature: a token signed by another key is refused, whatever kid it names', async () => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const otherJwk = await exportJWK(privateKey);
      await assertRefused(await forge(realClaims(), {}, otherJwk));
      await assertRefused(await forge(realClaims(), { kid: 'other-key' }, otherJwk));
      await assertRefused(await forge(realClaims(), { kid: undefined }, otherJwk));
    });

    it('ignores a key embedded in the token header', async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      await assertRefused(await forge(realClaims(), { kid: undefined, jwk: await exportJWK(publicKey) }, await exportJWK(privateKey)));
    });

    it('checks the signature: a changed payload is refused', async () => {
      const [header, , signature] = tokens.access_token.split('.');
      const payload = Buffer.from(JSON.stringify({ ...realClaims(), scope: 'read:models write:composer read:tab' })).toString('base64url');
      await assertRefused(`${header}.${payload}.${signature}`);
    });

    it('refuses alg none', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: realKey.kid })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(realClaims())).toString('base64url');
      await assertRefused(`${header}.${payload}.`);
      await assertRefused(`${header}.${payload}`);
    });

    it('refuses HS256 keyed with the public key (algorithm confusion)', async () => {
      const secret = new TextEncoder().encode(JSON.stringify(realKey.publicJwk));
      const token = await new SignJWT(realClaims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: realKey.kid }).sign(secret);
      await assertRefused(token);
    });

    it('refuses ES256 signed with another curve (ES384)', async () => {
      const { privateKey } = await generateKeyPair('ES384', { extractable: true });
      await assertRefused(await forge(realClaims(), { alg: 'ES384' }, await exportJWK(privateKey)));
    });

    it('refuses garbage', async () => {
      for (const token of ['garbage', 'a.b.c', 'a.b', '...', 'eyJ.eyJ.eyJ', `${tokens.access_token}x`, Buffer.from('{}').toString('base64url')]) {
        await assertRefused(token);
      }
    });

    it('refuses a token of a grant that does not exist', async () => {
      await assertRefused(await forge({ ...realClaims(), gid: '00000000-0000-0000-0000-000000000000' }));
    });

    it('checks exp against the clock: accepted just before, refused (expired) after', async () => {
      const fresh = await signInWithCode(hosted, client, SCOPE);
      const { exp, iat } = decodeJwt(fresh.access_token);
      hosted.clock.advance((exp! - iat! - 1) * 1000);
      assert.equal((await getWith(hosted, '/api/v1/models', fresh.access_token)).status, 200);
      hosted.clock.advance(2000);
      await assertRefused(fresh.access_token, /expired/);
    });
  });
});
