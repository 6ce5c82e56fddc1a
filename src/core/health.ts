import type { Health } from '../contracts/schemas.ts';
import type { Clock } from './clock.ts';

export interface HealthDeps {
  version: string;
  startedAt: number;
  clock: Clock;
  /** Round trip to the store in ms; throws when it is unreachable. */
  pingStore: () => Promise<number>;
}

export function basicHealth(deps: HealthDeps): Health {
  return { ok: true, version: deps.version, uptime: uptimeSeconds(deps) };
}

/** Health with the state of what the service depends on (API-Version v2). */
export async function detailedHealth(deps: HealthDeps): Promise<Health> {
  let store = { ok: true, latencyMs: 0 };
  try {
    store.latencyMs = round(await deps.pingStore());
  } catch {
    store = { ok: false, latencyMs: 0 };
  }
  return { ok: store.ok, version: deps.version, uptime: uptimeSeconds(deps), checks: { store } };
}

function uptimeSeconds(deps: HealthDeps): number {
  return round((deps.clock.now() - deps.startedAt) / 1000);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
