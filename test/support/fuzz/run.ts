// Runs a seeded fuzz of one server: requests for its targets, each answer checked, and the
// server's state compared before and after every refused request. The seed comes from
// LOOM_FUZZ_SEED when set (to replay a failure), otherwise it is new each run; a failure names
// it. LOOM_FUZZ_RUNS sets how many requests are sent.
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { sendRaw, type RawResponse } from '../raw-http.ts';
import type { ResponseChecker } from './check.ts';
import { requestFor, type FuzzRequest, type FuzzServer } from './requests.ts';
import type { FuzzTarget } from './targets.ts';

/** What a refused request must leave as it was: named parts, each a fingerprint. */
export type Snapshot = Record<string, string>;

export interface FuzzOptions {
  /** Names the server in messages ("hosted", "local"). */
  name: string;
  port: number;
  targets: FuzzTarget[];
  server: FuzzServer;
  checker: ResponseChecker;
  snapshot: () => Promise<Snapshot>;
  /** Requests sent when LOOM_FUZZ_RUNS does not say. */
  runs: number;
  /** Break every request at the HTTP level (see requests.ts), to fuzz the HTTP parser's answers. */
  malformed?: boolean;
}

/** The seed of this run: LOOM_FUZZ_SEED, or a new one. */
export function fuzzSeed(): number {
  const given = process.env.LOOM_FUZZ_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`LOOM_FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);
    return seed;
  }
  return randomInt(2 ** 31);
}

function fuzzRuns(fallback: number): number {
  const given = process.env.LOOM_FUZZ_RUNS;
  if (given === undefined || given === '') return fallback;
  const runs = Number(given);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`LOOM_FUZZ_RUNS must be a positive integer, not ${JSON.stringify(given)}`);
  return runs;
}

/** Sends the requests; throws with the seed, the request and every problem at the first failure. */
export async function fuzz(options: FuzzOptions): Promise<{ seed: number; runs: number; statuses: Map<number, number> }> {
  const seed = fuzzSeed();
  const runs = fuzzRuns(options.runs);
  const statuses = new Map<number, number>();
  // Each target's arbitrary is built once, not on every draw.
  const perTarget = new Map(options.targets.map((target) => [target, requestFor(target, options.server, options.malformed)]));
  const requests = fc
    .constantFrom(...options.targets)
    .chain((target) => perTarget.get(target)!)
    // fast-check prints a failing request this way rather than as its whole structure.
    .map((request) => Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) }));
  const property = fc.asyncProperty(requests, async (request) => {
    const before = await options.snapshot();
    let response: RawResponse;
    try {
      response = await sendRaw(options.port, request);
    } catch (error) {
      throw new Error(`${describeRequest(request)}\n  no answer: ${(error as Error).message}`);
    }
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const problems = options.checker.problems(request, response);
    if (response.status >= 400) {
      const after = await options.snapshot();
      const changed = Object.keys({ ...before, ...after }).filter((key) => before[key] !== after[key]);
      if (changed.length) problems.push(`refused (${response.status}) but changed ${changed.join(', ')}`);
    }
    if (problems.length) {
      throw new Error(
        `${describeRequest(request)}\n  answer: ${response.status} ${response.text.slice(0, 300)}\n  problems:\n    - ${problems.join('\n    - ')}`,
      );
    }
  });
  try {
    // No shrinking: each step would be another request against a server whose state the
    // earlier ones changed; the seed replays the failing request as it was.
    await fc.assert(property, { seed, numRuns: runs, endOnFailure: true, includeErrorInReport: true });
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(
      `The ${options.name} fuzz failed with seed ${seed} (replay: LOOM_FUZZ_SEED=${seed}${process.env.LOOM_FUZZ_RUNS ? ` LOOM_FUZZ_RUNS=${runs}` : ''}).\n${message}`,
    );
  }
  return { seed, runs, statuses };
}

/** A request as a reader wants it in a failure: method, target, headers, the start of the body. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body ? ` body (${request.body.length} bytes): ${JSON.stringify(request.body.subarray(0, 200).toString('utf8'))}` : '';
  const headers = request.headers
    .map(([name, value]) => `${name}: ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}… (${value.length})` : value)}`)
    .join(', ');
  return `${request.method} ${request.target.length > 300 ? `${request.target.slice(0, 300)}… (${request.target.length})` : request.target} [${request.route.id}, as ${request.identity}] {${headers}}${body}`;
}
