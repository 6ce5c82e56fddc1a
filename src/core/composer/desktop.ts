// The desktop app's composer: under `loom up` the hosted API runs in the same process as the
// app's local server, and the window (signed in to the local server only, with no hosted
// identity) starts and reads sessions as one hosted user, the machine's owner. That user is an
// identity of the provider `desktop`, which no sign-in provider, API key or admin command
// names: nobody reaches its sessions through the hosted API, and the window sees no one
// else's. Nothing of hosted auth changes: the local server calls the service in-process.
import { randomUUID } from 'node:crypto';
import type { ComposerMode, ComposerEvent, ComposerSessionRecord } from './types.ts';
import type { ComposerService } from './service.ts';
import type { UserRepository } from '../identity/records.ts';
import { systemClock, type Clock } from '../clock.ts';

/** The identity provider of the machine's owner; no sign-in provider has this name. */
export const DESKTOP_PROVIDER = 'desktop';
const DESKTOP_SUBJECT = 'owner';

/** The composer sessions of the desktop app's window: one owner, the workspace folder. */
export interface DesktopComposer {
  /** The owner's sessions, newest first. */
  list(limit: number): Promise<ComposerSessionRecord[]>;
  /** Starts a session on the server's default workspace (the app's folder). */
  create(request: {
    prompt: string;
    files: string[];
    mode?: ComposerMode;
  }): Promise<{ sessionId: string; status: 'queued' | 'running'; workspace: string | null }>;
  /** The session; LoomError not_found when it is not the owner's. */
  get(sessionId: string): Promise<ComposerSessionRecord>;
  cancel(sessionId: string): Promise<ComposerSessionRecord>;
  /** Continues an ended session with the owner's message (ComposerService.continue). */
  continue(sessionId: string, request: { message: string }): Promise<ComposerSessionRecord>;
  /** Events after `after`, at most `limit`, without waiting for more. */
  events(sessionId: string, after: number, limit: number): Promise<ComposerEvent[]>;
  /** Events after `after`, then each new one, until the session ends or `signal` aborts. */
  follow(sessionId: string, after: number, signal: AbortSignal): Promise<AsyncIterable<ComposerEvent>>;
}

/**
 * The machine's owner on the hosted store: found, or made on first use (two processes making it
 * at once make one: the identity's primary key decides).
 *
 * @example const owner = await desktopOwner(store.users); // { id: '…', login: 'desktop', … }
 */
export async function desktopOwner(users: UserRepository, clock: Clock = systemClock): Promise<{ id: string }> {
  const known = await users.findByIdentity(DESKTOP_PROVIDER, DESKTOP_SUBJECT);
  if (known) return known;
  const user = { id: randomUUID(), login: 'desktop', name: 'The desktop app (loom up)', email: null, createdAt: new Date(clock.now()).toISOString() };
  if (await users.createWithIdentity(user, DESKTOP_PROVIDER, DESKTOP_SUBJECT)) return user;
  const made = await users.findByIdentity(DESKTOP_PROVIDER, DESKTOP_SUBJECT);
  if (!made) throw new Error('The desktop user could be neither made nor found.');
  return made;
}

/**
 * `service` as the desktop app's window uses it: every call as the machine's owner, every new
 * session on the server's default workspace.
 *
 * @example
 * local.attachComposer(desktopComposer(hosted.services.composer, hosted.store.users));
 */
export function desktopComposer(service: ComposerService, users: UserRepository, clock: Clock = systemClock): DesktopComposer {
  let owner: Promise<string> | undefined;
  // Found once; a failure (the store was unreachable) is tried again on the next call.
  const ownerId = () =>
    (owner ??= desktopOwner(users, clock).then(
      (user) => user.id,
      (error: unknown) => {
        owner = undefined;
        throw error;
      },
    ));
  return {
    list: async (limit) => service.list(await ownerId(), limit),
    create: async ({ prompt, files, mode }) => service.create(await ownerId(), { prompt, files, ...(mode ? { mode } : {}) }),
    get: async (sessionId) => service.get(await ownerId(), sessionId),
    cancel: async (sessionId) => service.cancel(await ownerId(), sessionId),
    continue: async (sessionId, request) => service.continue(await ownerId(), sessionId, request),
    events: async (sessionId, after, limit) => service.events(await ownerId(), sessionId, after, limit),
    follow: async (sessionId, after, signal) => service.follow(await ownerId(), sessionId, after, signal),
  };
}
