// Local rate limits (interface.md: /ai/complete 60 per minute, everything else 120). Every
// caller holds the same token on the same machine, so a client is not a meaningful unit: the
// budgets are for the server as a whole, one per limit class.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { MemoryCounter } from '../core/rate-limit/counters.ts';
import { applyRateLimit } from '../http/rate-limit-headers.ts';

export interface LocalLimits {
  aiComplete: number;
  default: number;
}

export const DEFAULT_LOCAL_LIMITS: LocalLimits = { aiComplete: 60, default: 120 };
const WINDOW_MS = 60_000;

/** Which budget a path draws on. */
export function limitClass(path: string): keyof LocalLimits {
  return path === '/api/ai/complete' ? 'aiComplete' : 'default';
}

export function registerLocalRateLimit(app: FastifyInstance, limits: () => LocalLimits, clock: Clock): void {
  const counter = new MemoryCounter(clock);
  app.addHook('onRequest', (request, reply, done) => {
    const kind = limitClass(request.url.split('?')[0] ?? '/');
    const max = limits()[kind];
    done(applyRateLimit(reply, counter.count(kind, WINDOW_MS), max, WINDOW_MS / 1000));
  });
}
