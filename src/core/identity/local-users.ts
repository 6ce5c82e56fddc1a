// Users the operator makes (`loom admin users add NAME`): no code host or OpenID Connect
// provider behind them, so nobody signs in as one through a browser; they call the API with
// API keys the operator creates for them. The name is an identity of the provider `local`,
// whose primary key keeps two such users from sharing a name, whatever the letter case.
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { UserRecord, UserRepository } from './records.ts';

export const LOCAL_PROVIDER = 'local';

/** Letters, digits, `.`, `_`, `-`; a letter or digit first: safe in a shell, a URL and a table. */
const LOCAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,38}$/;

export class LocalUsers {
  constructor(
    private readonly repository: UserRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Makes the user `name`, or answers undefined when a local user of that name (in any letter
   * case) exists. An invalid name is a `validation_error`.
   *
   * @example await new LocalUsers(store.users).add('ada') // { id: '…', login: 'ada', … }
   */
  async add(name: string): Promise<UserRecord | undefined> {
    if (!LOCAL_NAME.test(name)) {
      throw new LoomError(
        'validation_error',
        `${JSON.stringify(name.slice(0, 60))} is not a valid user name: 1 to 39 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
      );
    }
    const user: UserRecord = { id: randomUUID(), login: name, name: null, email: null, createdAt: new Date(this.clock.now()).toISOString() };
    return (await this.repository.createWithIdentity(user, LOCAL_PROVIDER, subjectOf(name))) ? user : undefined;
  }

  /** The local user of that name, in any letter case. */
  find(name: string): Promise<UserRecord | undefined> {
    return this.repository.findByIdentity(LOCAL_PROVIDER, subjectOf(name));
  }
}

function subjectOf(name: string): string {
  return name.toLowerCase();
}
