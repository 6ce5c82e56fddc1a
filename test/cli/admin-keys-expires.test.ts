// What `loom admin keys create --expires` takes, counted from a fixed time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseExpires } from '../../src/cli/commands/admin-keys.ts';
import { CliError } from '../../src/cli/errors.ts';

const now = Date.UTC(2026, 0, 1, 9, 30); // 2026-01-01T09:30:00Z
const refused = (text: string, message: RegExp) =>
  assert.throws(
    () => parseExpires(text, now),
    (error: unknown) => error instanceof CliError && error.exitCode === 1 && message.test(error.message),
    text,
  );

describe('--expires', () => {
  it('takes hours and days, from 1h to 365d', () => {
    assert.equal(parseExpires('1h', now), 3600);
    assert.equal(parseExpires('12h', now), 43_200);
    assert.equal(parseExpires('30d', now), 30 * 86_400);
    assert.equal(parseExpires('365d', now), 365 * 86_400);
    assert.equal(parseExpires('8760h', now), 365 * 86_400);
    for (const text of ['0h', '0d', '366d', '8761h']) refused(text, /is out of range: from 1h to 365d from now$/);
  });

  it('takes an ISO date (midnight UTC) or date and time (UTC unless it has an offset)', () => {
    assert.equal(parseExpires('2026-01-31', now), 30 * 86_400 - 9.5 * 3600);
    assert.equal(parseExpires('2026-01-01T12:30Z', now), 3 * 3600);
    assert.equal(parseExpires('2026-01-01T12:30', now), 3 * 3600);
    assert.equal(parseExpires('2026-01-01T12:30:00.000Z', now), 3 * 3600);
    assert.equal(parseExpires('2026-01-01T14:30+02:00', now), 3 * 3600);
    refused('2026-01-01T10:00Z', /out of range: from 1h/);
    refused('2025-12-31', /^--expires 2025-12-31 is in the past$/);
    refused('2026-01-01T09:30Z', /is in the past$/);
    refused('2027-01-02', /out of range/);
    for (const text of ['2026-02-30', '2026-13-01', '2026-01-01T25:00Z', '2026-01-01T10:00+25:00']) refused(text, /is not a real date$/);
  });

  it('refuses never with the reason, and anything else with the forms it takes', () => {
    refused('never', /^API keys always expire, at the latest after 365d/);
    for (const text of ['soon', '30', '30 d', '-1d', '1w', '1.5d', '2026/12/31', '31-12-2026', 'x'.repeat(500)]) {
      refused(text, /^--expires takes 12h, 30d, an ISO date \(2026-12-31\) or date and time \(2026-12-31T18:00Z\); not ".{0,60}"$/);
    }
  });
});
