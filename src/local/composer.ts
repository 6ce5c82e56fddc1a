// The window's composer: the hosted API's sessions as the machine's owner (core/composer/
// desktop.ts), when `loom up` hands one over; until then (`loom serve` alone) every composer
// route answers 409 COMPOSER_UNAVAILABLE. Each session the window starts is followed here and
// told on the event stream: `composer:progress` with each of its events (the window reads them),
// `composer:status` when its status changes.
import type { DesktopComposer } from '../core/composer/desktop.ts';
import { ENDED_STATUSES, type ComposerStatus } from '../core/composer/types.ts';
import { LoomError } from '../core/errors.ts';
import type { EventBus } from '../core/events/bus.ts';

export class WindowComposer {
  private composer: DesktopComposer | undefined;
  private readonly stopping = new AbortController();
  private readonly following = new Map<string, Promise<void>>();

  constructor(
    private readonly events: EventBus,
    private readonly log: (message: string) => void = () => {},
  ) {}

  /**
   * Hands over the hosted API's composer (`loom up`), and follows the owner's sessions still
   * waiting or running (a restart left them), so that their ends are told too.
   *
   * @example local.attachComposer(desktopComposer(hosted.services.composer, hosted.store.users));
   */
  attach(composer: DesktopComposer): void {
    this.composer = composer;
    void composer
      .list(200)
      .then((sessions) => {
        const now = new Date().toISOString();
        for (const session of sessions) if (!ENDED_STATUSES.includes(session.status)) this.follow(session.id, { since: now });
      })
      .catch((error: unknown) => this.log(`composer sessions could not be listed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** The composer, or LoomError composer_unavailable with what to do. */
  get current(): DesktopComposer {
    if (!this.composer)
      throw new LoomError(
        'composer_unavailable',
        'Composer sessions run on the hosted API, and none runs beside this server.',
        'Run loom up (npm start): it runs the hosted API and this app in one process, with this workspace as composer’s. (With REDIS_URL, sessions run on workers that know only registered workspaces: use loom composer there.)',
      );
    return this.composer;
  }

  /**
   * Follows a session's events (each told as `composer:progress`, a status as
   * `composer:status`) until it ends: those after the seq `after`, or those written at `since`
   * or later (a session found at start-up, or continued by a message: its events before are
   * told already).
   */
  follow(sessionId: string, from: { after: number } | { since: string }): void {
    if (this.following.has(sessionId) || this.stopping.signal.aborted) return;
    const composer = this.current;
    const since = 'since' in from ? from.since : undefined;
    const run = async () => {
      const stream = await composer.follow(sessionId, 'after' in from ? from.after : 0, this.stopping.signal);
      for await (const event of stream) {
        if (since && event.at < since) continue;
        await this.events.emit('composer:progress', { sessionId, seq: event.seq, type: event.type });
        if (event.type === 'status') {
          const status = event.data.status as ComposerStatus;
          await this.events.emit('composer:status', { sessionId, status, ...(typeof event.data.error === 'string' ? { error: event.data.error } : {}) });
        }
      }
    };
    const done = run()
      .catch((error: unknown) => {
        if (!this.stopping.signal.aborted)
          this.log(`composer session ${sessionId} could not be followed: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => this.following.delete(sessionId));
    this.following.set(sessionId, done);
  }

  /** Stops following; resolves once every follower has stopped. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.following.values());
  }
}
