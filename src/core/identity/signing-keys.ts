// The ES256 keys that sign access tokens, ID tokens and API keys. Kept in the store so that
// every process signs and verifies with the same keys and a restart invalidates nothing.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import { systemClock, type Clock } from '../clock.ts';
import type { SigningKeyRecord, SigningKeyRepository } from './records.ts';

type KeyLike = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKey {
  kid: string;
  privateKey: KeyLike;
  publicKey: KeyLike;
  publicJwk: JWK;
}

export class SigningKeys {
  private keys: LoadedKey[] = [];

  constructor(
    private readonly repository: SigningKeyRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Loads the stored keys, creating the first one on a fresh store. */
  async init(): Promise<void> {
    await this.reload();
    if (this.keys.length === 0) {
      await this.repository.add(await this.createKey());
      await this.reload();
    }
  }

  /** The public keys, as a JWK Set (RFC 7517). */
  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: 'ES256', use: 'sig' })) };
  }

  async sign(claims: JWTPayload, typ: string, expiresInSeconds: number): Promise<string> {
    const key = this.current();
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ, kid: key.kid })
      .setIssuedAt(now)
      .setExpirationTime(now + expiresInSeconds)
      .sign(key.privateKey);
  }

  /**
   * Verifies signature, `typ`, `iss`, `aud` and `exp`. An unknown `kid` makes it reload once:
   * another process may have created a key since this one started.
   */
  async verify(token: string, expected: { typ: string; issuer: string; audience: string }): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, (header) => this.publicKeyFor(header.kid), {
      algorithms: ['ES256'],
      typ: expected.typ,
      issuer: expected.issuer,
      audience: expected.audience,
      currentDate: new Date(this.clock.now()),
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    return payload;
  }

  private async publicKeyFor(kid: string | undefined): Promise<KeyLike> {
    let key = this.keys.find((k) => k.kid === kid);
    if (!key && kid) {
      await this.reload();
      key = this.keys.find((k) => k.kid === kid);
    }
    if (!key) throw new Error('unknown signing key');
    return key.publicKey;
  }

  private current(): LoadedKey {
    const key = this.keys[0];
    if (!key) throw new Error('SigningKeys.init() was not called');
    return key;
  }

  private async reload(): Promise<void> {
    const records = await this.repository.list();
    this.keys = await Promise.all(
      records.map(async (record) => ({
        kid: record.kid,
        privateKey: await importJWK(record.privateJwk as JWK, 'ES256'),
        publicKey: await importJWK(record.publicJwk as JWK, 'ES256'),
        publicJwk: record.publicJwk as JWK,
      })),
    );
  }

  private async createKey(): Promise<SigningKeyRecord> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    return {
      kid: await calculateJwkThumbprint(publicJwk),
      privateJwk: { ...(await exportJWK(privateKey)) },
      publicJwk: { ...publicJwk },
      createdAt: new Date(this.clock.now()).toISOString(),
    };
  }
}
