// A log destination that keeps every line a server writes, and the checks the log-secrecy tests
// make on them: each line is JSON, and none holds a secret the test used, whole or in part.
import assert from 'node:assert/strict';
import type { LogDestination } from '../../src/http/log-destination.ts';

export interface CapturedLog extends LogDestination {
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Every line written so far, as written. */
  text(): string[];
}

export function captureLog(): CapturedLog {
  const raw: string[] = [];
  return {
    write(chunk) {
      // A write may hold several lines.
      for (const line of chunk.split('\n')) if (line) raw.push(line);
    },
    text: () => [...raw],
    lines: () =>
      raw.map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          assert.fail(`a log line is not JSON: ${line}`);
        }
      }),
  };
}

/** The secrets a test used, and how much of one may show before it counts as leaked. */
export class Secrets {
  private readonly whole = new Set<string>();
  private readonly random = new Set<string>();

  /** A secret chosen by the test or a fake (`codehost-secret`): leaked when it shows whole. */
  add(value: string | null | undefined): void {
    if (value) this.whole.add(value);
  }

  /** A random secret (token, code, state…): leaked when any 10 characters of it in a row show. */
  addRandom(value: string | null | undefined): void {
    if (value) this.random.add(value);
  }

  get size(): number {
    return this.whole.size + this.random.size;
  }

  /** Fails naming the first line that holds a secret, or part of a random one. */
  assertAbsentFrom(lines: string[]): void {
    for (const line of lines) {
      for (const secret of this.whole) assert.ok(!line.includes(secret), `a log line holds the secret ${secret}: ${line}`);
      for (const secret of this.random) {
        for (let start = 0; start + 10 <= secret.length; start++) {
          const part = secret.slice(start, start + 10);
          assert.ok(!line.includes(part), `a log line holds part (${part}) of the secret ${secret}: ${line}`);
        }
      }
    }
  }
}

/** The fields a request line may carry, and nothing else. */
export const REQUEST_LINE_FIELDS = ['hostname', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'route', 'status', 'time'];

/** Asserts each request line holds only the known-safe fields; returns the request lines. */
export function requestLines(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  const requests = lines.filter((line) => line.msg === 'request');
  for (const line of requests) {
    for (const key of Object.keys(line)) assert.ok(REQUEST_LINE_FIELDS.includes(key), `a request line holds "${key}": ${JSON.stringify(line)}`);
  }
  return requests;
}
