// API keys: bearer JWTs a signed-in user creates in the dashboard. Shown once; only their id
// is kept, so that a key can be listed and revoked (at once: every use checks the record).
import { randomUUID } from 'node:crypto';
import { SCOPES, isScope, type Scope } from '../../contracts/auth.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyRepository } from './records.ts';
import type { TokenService } from './tokens.ts';

export const MAX_KEY_DAYS = 365;
/** A key acts for its user on the API; identity scopes (openid, profile, email) mean nothing for it. */
export const API_KEY_SCOPES = (Object.keys(SCOPES) as Scope[]).filter((s) => s.includes(':'));

export class ApiKeyService {
  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly tokens: TokenService,
    private readonly clock: Clock = systemClock,
  ) {}

  async create(userId: string, input: { name: string; expiresInDays: number; scopes?: string[] }): Promise<{ key: string; record: ApiKeyRecord }> {
    const name = input.name.trim();
    const problems: string[] = [];
    if (!name || name.length > 100) problems.push('name must be 1 to 100 characters');
    if (!Number.isInteger(input.expiresInDays) || input.expiresInDays < 1 || input.expiresInDays > MAX_KEY_DAYS) {
      problems.push(`expiresInDays must be a whole number from 1 to ${MAX_KEY_DAYS}`);
    }
    const scopes = input.scopes ?? API_KEY_SCOPES;
    const refused = scopes.filter((s) => !isScope(s) || !API_KEY_SCOPES.includes(s));
    if (refused.length) problems.push(`scopes not available to API keys: ${refused.join(' ')}`);
    if (problems.length) throw new LoomError('validation_error', `Cannot create the key: ${problems.join('; ')}.`);

    const now = this.clock.now();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      userId,
      name,
      scope: [...new Set(scopes)].join(' '),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.expiresInDays * 86_400_000).toISOString(),
      revokedAt: null,
    };
    await this.repository.add(record);
    const key = await this.tokens.signApiKey({ id: record.id, userId, scope: record.scope }, input.expiresInDays * 86_400);
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
