// Local rate limits (docs/local-api.md: /api/ai/complete 60 per minute, everything else 120). Every
// caller holds the same token on the same machine, so a client is not a meaningful unit: the
// budgets are for the server as a whole, one per limit class. Which budget a request draws on is
// the rule of the route that answers it (`limit` in its config), read after routing: however the
// URL is spelt (`/api/ai/%63omplete`, an absolute-form target), the route decides.
import type { FastifyInstance } from 'fastify';
import type { LocalLimitClass } from '../contracts/local-routes.ts';
import type { Clock } from '../core/clock.ts';
import { LoomError } from '../core/errors.ts';
import { MemoryCounter } from '../core/rate-limit/counters.ts';
import { applyRateLimit } from '../http/rate-limit-headers.ts';
import { routeRules } from './route-rules.ts';

export type LocalLimits = Record<LocalLimitClass, number>;

export const DEFAULT_LOCAL_LIMITS: LocalLimits = { aiComplete: 60, default: 120 };
const WINDOW_MS = 60_000;

/**
 * Adds the rate limit as an onRequest hook: each request counts against its route's budget
 * (`limits()` read on every request, so settings.json edits apply at once), every answer
 * carries the RateLimit headers, and one over budget is 429 RATE_LIMIT_EXCEEDED, whose hint
 * names the budget's key in `settingsFile` (the desktop app's user is its operator).
 */
export function registerLocalRateLimit(app: FastifyInstance, limits: () => LocalLimits, clock: Clock, settingsFile = 'settings.json'): void {
  const counter = new MemoryCounter(clock);
  app.addHook('onRequest', (request, reply, done) => {
    const kind = routeRules(request).limit;
    const refusal = applyRateLimit(reply, counter.count(kind, WINDOW_MS), limits()[kind], WINDOW_MS / 1000);
    done(
      refusal &&
        new LoomError(refusal.code, refusal.message, `${refusal.hint} Or raise the budget: "rateLimits": {"${kind}": …} in ${settingsFile} (applies at once).`),
    );
  });
}
