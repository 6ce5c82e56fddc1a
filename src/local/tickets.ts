// Single-use, short-lived tickets that let a browser page open the event WebSocket: the page
// asks for one with its token over HTTP, then connects with `?ticket=…`.
import type { Clock } from '../core/clock.ts';
import { hashToken, randomToken } from '../core/identity/secrets.ts';

export const TICKET_SECONDS = 30;

export class TicketBook {
  private readonly tickets = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  issue(): { ticket: string; expiresIn: number } {
    this.sweep();
    const ticket = randomToken(24);
    this.tickets.set(hashToken(ticket), this.clock.now() + TICKET_SECONDS * 1000);
    return { ticket, expiresIn: TICKET_SECONDS };
  }

  /** True once per valid ticket. */
  redeem(ticket: string): boolean {
    const key = hashToken(ticket);
    const expires = this.tickets.get(key);
    this.tickets.delete(key);
    return expires !== undefined && expires > this.clock.now();
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, expires] of this.tickets) if (expires <= now) this.tickets.delete(key);
  }
}
