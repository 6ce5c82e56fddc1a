// A typed client of the local API, derived from the local route table: any HTTP route by its id,
// its input and answer typed by the route's schemas, an error envelope turned into a typed
// error. Imports nothing but contracts, so the CLI, the window and `loom mcp` can all use it.
import type { LocalErrorBody, LocalErrorCode } from '../contracts/local-resources.ts';
import {
  localRoutes,
  type LocalRoute,
  type LocalRouteById,
  type LocalRouteId,
  type LocalRouteInput,
  type LocalRouteOutput,
} from '../contracts/local-routes.ts';

export interface LocalClientOptions {
  /** Where the server listens, e.g. `http://127.0.0.1:27432`. */
  url: string;
  /** The API token of settings.json. */
  token: string;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Aborts the call (the server then stops what it was doing for it, where it can). */
  signal?: AbortSignal;
}

/** The parts of a route's input it declares. */
type Declared<T> = { [K in keyof T as T[K] extends undefined ? never : K]: T[K] };
/** The type every object type extends: `Empty extends T` holds when nothing in `T` is required. */
type Empty = Record<never, never>;
/** A part whose fields are all optional may be left out (a body is then sent as `{}`). */
type LeaveOutOptional<T> = { [K in keyof T as Empty extends T[K] ? K : never]?: T[K] } & { [K in keyof T as Empty extends T[K] ? never : K]: T[K] };

/** What `call` takes for a route: `{params, query, body}` as the route declares them. */
export type CallInput<Id extends LocalRouteId> = LeaveOutOptional<Declared<LocalRouteInput<LocalRouteById<Id>>>>;
export type CallOutput<Id extends LocalRouteId> = LocalRouteOutput<LocalRouteById<Id>>;

/** The input argument may be left out when nothing in it is required. */
type CallArguments<Id extends LocalRouteId> =
  Empty extends CallInput<Id> ? [input?: CallInput<Id>, options?: CallOptions] : [input: CallInput<Id>, options?: CallOptions];

/** Besides the server's codes: no answer came, or one the client cannot read. */
export type LocalClientErrorCode = LocalErrorCode | 'UNREACHABLE' | 'INVALID_ANSWER';

/** A failed call: the server's error envelope, or no usable answer (status 0). */
export class LocalApiError extends Error {
  override name = 'LocalApiError';
  readonly hint?: string;
  /** Seconds to wait before retrying (RATE_LIMIT_EXCEEDED). */
  readonly retryAfter?: number;
  /** The failing fields of a VALIDATION_ERROR. */
  readonly details?: { field: string; message: string }[];
  /** The conflicted files of a GIT_CONFLICT. */
  readonly files?: string[];

  constructor(
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly code: LocalClientErrorCode,
    message: string,
    extra: Omit<LocalErrorBody['error'], 'code' | 'message'> = {},
  ) {
    super(message);
    Object.assign(this, extra);
  }
}

const ROUTES = new Map<string, LocalRoute>(localRoutes.map((route) => [route.id, route]));

/**
 * Calls the local API.
 *
 * @example
 *   const client = new LocalClient({ url: 'http://127.0.0.1:27432', token });
 *   const { completion } = await client.call('completeCode', { body: { prompt: 'const a = ', language: 'typescript' } });
 *   const status = await client.call('getGitStatus');
 */
export class LocalClient {
  private readonly url: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: LocalClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  /** Calls the route `id`; resolves to its answer, or rejects with a LocalApiError. */
  async call<Id extends LocalRouteId>(id: Id, ...[input, options]: CallArguments<Id>): Promise<CallOutput<Id>> {
    const route = ROUTES.get(id);
    if (!route || route.websocket) throw new TypeError(`${id} is not an HTTP route of the local API.`);
    const { params, query, body } = (input ?? {}) as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const url = this.url + fillPath(route.path, params) + queryString(query);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    let payload: string | undefined;
    // A route that takes no body gets none (an empty JSON body is not JSON).
    if (route.request.body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body ?? {});
    }
    let response: Response;
    try {
      response = await this.fetch(url, { method: route.method, headers, body: payload, signal: options?.signal });
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new LocalApiError(0, 'UNREACHABLE', `Cannot reach the local API at ${this.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}.`, {
        hint: 'Is `loom serve` (or `loom up`) running?',
      });
    }
    const text = await response.text();
    const answer = parseJson(text);
    if (response.ok && answer !== undefined) return answer as CallOutput<Id>;
    const envelope = (answer as Partial<LocalErrorBody> | undefined)?.error;
    if (!response.ok && envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
      const { code, message, ...extra } = envelope;
      throw new LocalApiError(response.status, code as LocalErrorCode, message, extra);
    }
    throw new LocalApiError(
      response.status,
      'INVALID_ANSWER',
      `The local API answered ${response.status} with something that is not ${response.ok ? 'JSON' : 'its error envelope'}.`,
    );
  }
}

/**
 * The path with its parameters filled in. A value that cannot stand as one path segment is
 * refused before anything is sent: a missing one, an empty one, and `.` or `..`, which URL
 * parsing would fold into the segments around them, sending the call to another route (a `%`
 * is encoded, so no other value spells a dot segment).
 */
function fillPath(path: string, params: Record<string, unknown> = {}): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    const segment = typeof value === 'string' || typeof value === 'number' ? encodeURIComponent(String(value)) : '';
    if (segment === '' || segment === '.' || segment === '..') {
      throw new LocalApiError(0, 'VALIDATION_ERROR', `Invalid request: params.${name} must be a non-empty name other than "." and "..".`, {
        details: [{ field: `params.${name}`, message: 'must be a non-empty name other than "." and ".."' }],
      });
    }
    return segment;
  });
}

function queryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.append(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
