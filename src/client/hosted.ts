// A typed client of the hosted API (/api/v1), derived from the operation table: any operation by
// its operationId, its input and answer typed by the operation's schemas, an error answer
// (`{error, message, hint?}`) turned into a typed error. Imports nothing but contracts.
import { readCapped } from '../contracts/framing.ts';
import { API_PREFIX } from '../contracts/versioning.ts';
import { operations, type AnyOperation, type OperationInput, type OperationOutput } from '../contracts/operations.ts';

/**
 * The largest answer read: the hosted API's are a few KiB (a composer session with its diffs a
 * few MiB); a server that sends more is not one.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

type OperationById<Id extends AnyOperation['operationId']> = Extract<AnyOperation, { operationId: Id }>;
export type HostedOperationId = AnyOperation['operationId'];

export interface HostedClientOptions {
  /** The server's public URL, e.g. `https://loom.example.com` (the API is under /api/v1). */
  url: string;
  /** An OAuth access token or API key; anonymous without one. */
  token?: string;
  /** Per-request time limit in ms (default 30 000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A failed call: the server's error answer, or no usable answer (status 0, `unreachable` or `invalid_answer`). */
export class HostedApiError extends Error {
  override name = 'HostedApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    /** Seconds to wait before retrying (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

const BY_ID = new Map<string, AnyOperation>(operations.map((operation) => [operation.operationId, operation]));

/**
 * Calls the hosted API.
 *
 * @example
 *   const client = new HostedClient({ url: 'http://127.0.0.1:8080' });
 *   const { products } = await client.call('listDownloads', { query: { platform: 'linux' } });
 */
export class HostedClient {
  private readonly url: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: HostedClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  async call<Id extends HostedOperationId>(
    id: Id,
    input: Partial<OperationInput<OperationById<Id>>> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<OperationOutput<OperationById<Id>>> {
    const operation = BY_ID.get(id);
    if (!operation) throw new TypeError(`${id} is not an operation of the hosted API.`);
    const { params, query, body } = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const path = operation.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(params?.[name])));
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.append(name, String(value));
    const url = `${this.url}${API_PREFIX}${path}${search.size ? `?${search}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const signal = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs ?? 30_000), ...(options.signal ? [options.signal] : [])]);
    let response: Response;
    try {
      response = await this.fetch(url, {
        method: operation.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        redirect: 'manual',
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new HostedApiError(
        0,
        'unreachable',
        `Cannot reach the hosted API at ${this.url}: ${why}.`,
        'Is `loom hosted` (or `loom up`) running there? --server or LOOM_SERVER names another.',
      );
    }
    const { bytes, truncated } = await readCapped(response.body, MAX_ANSWER_BYTES);
    if (truncated)
      throw new HostedApiError(response.status, 'invalid_answer', `${url} answered with more than ${MAX_ANSWER_BYTES} bytes; is it a Loom server?`);
    const text = new TextDecoder().decode(bytes);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (response.ok && answer !== undefined) return answer as OperationOutput<OperationById<Id>>;
    const envelope = answer as { error?: unknown; message?: unknown; hint?: unknown } | undefined;
    if (!response.ok && typeof envelope?.error === 'string' && typeof envelope.message === 'string') {
      const retryAfter = Number(response.headers.get('retry-after')) || undefined;
      throw new HostedApiError(response.status, envelope.error, envelope.message, typeof envelope.hint === 'string' ? envelope.hint : undefined, retryAfter);
    }
    throw new HostedApiError(
      response.status,
      'invalid_answer',
      `${url} answered ${response.status} with something that is not the hosted API's JSON; is it a Loom server?`,
    );
  }
}
