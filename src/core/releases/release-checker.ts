import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';

export interface ReleaseCheckerOptions {
  timeoutMs: number;
  /** How long a found/missing answer is reused. Failures are never cached. */
  cacheSeconds: number;
  clock?: Clock;
}

type Verdict = 'found' | 'missing';

/** Status codes after which a HEAD is retried as a one-byte ranged GET (HEAD unsupported or refused). */
const HEAD_REFUSED = new Set([403, 405, 501]);

/**
 * Asks the code host whether a release file exists, with a timeout, a short cache and one
 * request in flight per URL however many clients ask at once.
 */
export class ReleaseChecker {
  private readonly cache = new Map<string, { verdict: Verdict; until: number }>();
  private readonly inFlight = new Map<string, Promise<Verdict>>();
  private readonly clock: Clock;

  constructor(private readonly options: ReleaseCheckerOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Resolves when the file exists; throws LoomError not_found or upstream_unavailable. */
  async verify(url: string): Promise<void> {
    const verdict = await this.check(url);
    if (verdict === 'missing') {
      throw new LoomError('not_found', 'The release file is not on the code host.', 'The release may have been withdrawn; try another version or asset.');
    }
  }

  private check(url: string): Promise<Verdict> {
    const cached = this.cache.get(url);
    if (cached && cached.until > this.clock.now()) return Promise.resolve(cached.verdict);
    let pending = this.inFlight.get(url);
    if (!pending) {
      pending = this.ask(url)
        .then((verdict) => {
          if (this.options.cacheSeconds > 0) {
            this.cache.set(url, { verdict, until: this.clock.now() + this.options.cacheSeconds * 1000 });
          }
          return verdict;
        })
        .finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, pending);
    }
    return pending;
  }

  private async ask(url: string): Promise<Verdict> {
    let status = await this.request(url, 'HEAD');
    if (HEAD_REFUSED.has(status)) status = await this.request(url, 'GET');
    if (status >= 200 && status < 300) return 'found';
    if (status === 404 || status === 410) return 'missing';
    throw new LoomError('upstream_unavailable', `The code host answered ${status} when asked for the release file.`, 'Try again shortly.');
  }

  private async request(url: string, method: 'HEAD' | 'GET'): Promise<number> {
    try {
      const response = await fetch(url, {
        method,
        redirect: 'follow',
        headers: method === 'GET' ? { range: 'bytes=0-0' } : {},
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await response.body?.cancel();
      return response.status;
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new LoomError(
        'upstream_unavailable',
        timedOut ? `The code host did not answer within ${this.options.timeoutMs} ms.` : 'The code host could not be reached.',
        'Try again shortly.',
      );
    }
  }
}
