// Dashboard sessions: an opaque cookie value (stored hashed) and a CSRF token for writes.
import { systemClock, type Clock } from '../clock.ts';
import type { SessionRecord, SessionRepository, UserRecord } from './records.ts';
import { constantTimeEqual, hashToken, randomToken } from './secrets.ts';
import type { UserDirectory } from './users.ts';

export const SESSION_SECONDS = 8 * 3600;

export class SessionService {
  constructor(
    private readonly repository: SessionRepository,
    private readonly users: UserDirectory,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Starts a session; the returned id goes into the cookie and is never stored as is. */
  async create(userId: string): Promise<{ id: string; record: SessionRecord }> {
    const id = randomToken(32);
    const now = this.clock.now();
    const record: SessionRecord = {
      idHash: hashToken(id),
      userId,
      csrfToken: randomToken(24),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + SESSION_SECONDS * 1000).toISOString(),
    };
    await this.repository.add(record);
    return { id, record };
  }

  async resolve(id: string | undefined): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
    if (!id) return undefined;
    const session = await this.repository.get(hashToken(id));
    if (!session || session.expiresAt <= new Date(this.clock.now()).toISOString()) return undefined;
    const user = await this.users.get(session.userId);
    return user ? { session, user } : undefined;
  }

  checkCsrf(session: SessionRecord, token: string | undefined): boolean {
    return typeof token === 'string' && constantTimeEqual(token, session.csrfToken);
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id) await this.repository.remove(hashToken(id));
  }
}
