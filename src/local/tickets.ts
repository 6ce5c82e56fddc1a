// Single-use, short-lived tickets that let a browser page open a WebSocket: the page asks for
// one over HTTP, then connects with `?ticket=…`. A ticket is bound to the token in force when it
// was bought (once that token is rotated, it opens nothing) and to what it is for: the event
// stream, or one window session's terminal (`terminalTicketPurpose`), so that neither opens the other.
import type { Clock } from '../core/clock.ts';
import { constantTimeEqual, hashToken, randomToken } from '../core/identity/secrets.ts';

export const TICKET_SECONDS = 30;

const EVENTS_TICKET = 'events';

/** What a terminal ticket is for: the one window session (by its cookie's id) that bought it. */
export function terminalTicketPurpose(sessionId: string): string {
  return `terminal:${hashToken(sessionId)}`;
}

export class TicketBook {
  /** By the ticket's hash: when it expires, and a fingerprint of the token that bought it. */
  private readonly tickets = new Map<string, { expires: number; boughtWith: string; purpose: string }>();

  constructor(private readonly clock: Clock) {}

  issue(token: string, purpose = EVENTS_TICKET): { ticket: string; expiresIn: number } {
    this.sweep();
    const ticket = randomToken(24);
    this.tickets.set(hashToken(ticket), { expires: this.clock.now() + TICKET_SECONDS * 1000, boughtWith: hashToken(token), purpose });
    return { ticket, expiresIn: TICKET_SECONDS };
  }

  /** True once per valid ticket, if the token in force is still the one that bought it and it was bought for `purpose`. */
  redeem(ticket: string, token: string, purpose = EVENTS_TICKET): boolean {
    const key = hashToken(ticket);
    const entry = this.tickets.get(key);
    this.tickets.delete(key);
    return (
      entry !== undefined &&
      entry.expires > this.clock.now() &&
      constantTimeEqual(entry.boughtWith, hashToken(token)) &&
      constantTimeEqual(entry.purpose, purpose)
    );
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, { expires }] of this.tickets) if (expires <= now) this.tickets.delete(key);
  }
}
