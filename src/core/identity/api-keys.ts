// API keys: bearer JWTs a signed-in user creates in the dashboard. Shown once; only their id
// is kept, so that a key can be listed and revoked (at once: every use checks the record).
import { randomUUID } from 'node:crypto';
import { SCOPES, isScope, type Scope } from '../../contracts/scopes.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyRepository } from './records.ts';
import type { TokenService } from './tokens.ts';

export const MAX_KEY_DAYS = 365;
/** A key's lifetime when its maker does not say (the dashboard's form, `loom admin keys create`). */
export const DEFAULT_KEY_DAYS = 90;
/** The shortest key `loom admin keys create --expires` makes: shorter ones are for OAuth access tokens. */
export const MIN_KEY_SECONDS = 3600;
export const MAX_KEY_SECONDS = MAX_KEY_DAYS * 86_400;

/** How long a key lives: whole days (the dashboard) or seconds (`loom admin keys create --expires 12h`). */
export type KeyLifetime = { expiresInDays: number } | { expiresInSeconds: number };
/** A key acts for its user on the API; identity scopes (openid, profile, email) mean nothing for it. */
export const API_KEY_SCOPES = (Object.keys(SCOPES) as Scope[]).filter((s) => s.includes(':'));

export class ApiKeyService {
  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly tokens: TokenService,
    private readonly clock: Clock = systemClock,
  ) {}

  async create(userId: string, input: { name: string; scopes?: string[] } & KeyLifetime): Promise<{ key: string; record: ApiKeyRecord }> {
    const name = input.name.trim();
    const problems: string[] = [];
    if (!name || name.length > 100) problems.push('name must be 1 to 100 characters');
    const seconds = lifetimeSeconds(input);
    if (typeof seconds === 'string') problems.push(seconds);
    const scopes = input.scopes ?? API_KEY_SCOPES;
    const refused = scopes.filter((s) => !isScope(s) || !API_KEY_SCOPES.includes(s));
    if (refused.length) problems.push(`scopes not available to API keys: ${refused.join(' ')} (they take ${API_KEY_SCOPES.join(' ')})`);
    if (problems.length || typeof seconds === 'string') throw new LoomError('validation_error', `Cannot create the key: ${problems.join('; ')}.`);

    const now = this.clock.now();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      userId,
      name,
      scope: [...new Set(scopes)].join(' '),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + seconds * 1000).toISOString(),
      revokedAt: null,
    };
    await this.repository.add(record);
    const key = await this.tokens.signApiKey({ id: record.id, userId, scope: record.scope }, seconds);
    return { key, record };
  }

  list(userId: string): Promise<ApiKeyRecord[]> {
    return this.repository.listForUser(userId);
  }

  async revoke(userId: string, id: string): Promise<void> {
    const revoked = await this.repository.revoke(id, userId, new Date(this.clock.now()).toISOString());
    if (!revoked) throw new LoomError('not_found', 'No such key, or it is already revoked.');
  }
}

/** The lifetime in seconds, or what is wrong with it. */
function lifetimeSeconds(lifetime: KeyLifetime): number | string {
  if ('expiresInDays' in lifetime) {
    const days = lifetime.expiresInDays;
    return Number.isInteger(days) && days >= 1 && days <= MAX_KEY_DAYS ? days * 86_400 : `expiresInDays must be a whole number from 1 to ${MAX_KEY_DAYS}`;
  }
  const seconds = lifetime.expiresInSeconds;
  return Number.isInteger(seconds) && seconds >= MIN_KEY_SECONDS && seconds <= MAX_KEY_SECONDS
    ? seconds
    : `expiresInSeconds must be a whole number from ${MIN_KEY_SECONDS} to ${MAX_KEY_SECONDS}`;
}
