import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import type { ExternalIdentity, UserRecord, UserRepository } from './records.ts';

/**
 * Creates or links users from provider identities. A known identity updates its user's
 * profile; a new one links to the user with the same verified email, or creates a user.
 */
export class UserDirectory {
  constructor(
    private readonly repository: UserRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  get(id: string): Promise<UserRecord | undefined> {
    return this.repository.get(id);
  }

  async signIn(identity: ExternalIdentity): Promise<UserRecord> {
    const known = await this.repository.findByIdentity(identity.provider, identity.subject);
    if (known) {
      const updated = { ...known, login: identity.login, name: identity.name ?? known.name, email: identity.email ?? known.email };
      await this.repository.update(updated);
      return updated;
    }
    const sameEmail = identity.email && identity.emailVerified ? await this.repository.findByEmail(identity.email) : undefined;
    if (sameEmail) {
      await this.repository.linkIdentity(sameEmail.id, identity.provider, identity.subject);
      return sameEmail;
    }
    const user: UserRecord = {
      id: randomUUID(),
      login: identity.login,
      name: identity.name,
      email: identity.email,
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.repository.create(user);
    await this.repository.linkIdentity(user.id, identity.provider, identity.subject);
    return user;
  }
}
