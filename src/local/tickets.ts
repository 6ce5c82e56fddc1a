// Single-use, short-lived tickets that let a browser page open the event WebSocket: the page
// asks for one with its token over HTTP, then connects with `?ticket=…`. A ticket is bound to
// the token it was bought with: once that token is rotated, the ticket opens nothing.
import type { Clock } from '../core/clock.ts';
import { constantTimeEqual, hashToken, randomToken } from '../core/identity/secrets.ts';

export const TICKET_SECONDS = 30;

export class TicketBook {
  /** By the ticket's hash: when it expires, and a fingerprint of the token that bought it. */
  private readonly tickets = new Map<string, { expires: number; boughtWith: string }>();

  constructor(private readonly clock: Clock) {}

  issue(token: string): { ticket: string; expiresIn: number } {
    this.sweep();
    const ticket = randomToken(24);
    this.tickets.set(hashToken(ticket), { expires: this.clock.now() + TICKET_SECONDS * 1000, boughtWith: hashToken(token) });
    return { ticket, expiresIn: TICKET_SECONDS };
  }

  /** True once per valid ticket, if the token in force is still the one that bought it. */
  redeem(ticket: string, token: string): boolean {
    const key = hashToken(ticket);
    const entry = this.tickets.get(key);
    this.tickets.delete(key);
    return entry !== undefined && entry.expires > this.clock.now() && constantTimeEqual(entry.boughtWith, hashToken(token));
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, { expires }] of this.tickets) if (expires <= now) this.tickets.delete(key);
  }
}
