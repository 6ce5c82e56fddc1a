// The local API as the window calls it: same origin, the session cookie sent by the browser,
// the session's CSRF value on every state-changing request. Failures become ApiError, with the
// local error envelope's code, message and hint, for the window to put in words.
import type { LocalErrorBody } from '../contracts/local-resources.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly files?: string[],
    /** Seconds to wait before trying again (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  /** One sentence for a person: the message, and what to do when the server says. */
  get words(): string {
    return this.hint ? `${this.message} ${this.hint}` : this.message;
  }
}

let csrf: string | undefined;
let onSignedOut: () => void = () => {};

/** The CSRF value of the session (after sign-in), and what to do when the session is gone. */
export function useSession(value: string, signedOut: () => void): void {
  csrf = value;
  onSignedOut = signedOut;
}

/**
 * Calls a route of the local API and answers its JSON.
 *
 * @example
 *   const { documents } = await api<DocumentList>('GET', '/api/editor/documents');
 */
export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-loom-csrf'] = csrf;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, credentials: 'same-origin' });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'UNREACHABLE', 'Loom is not answering: is loom serve still running?');
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as LocalErrorBody | undefined)?.error;
    const failure = new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? response.statusText,
      error?.hint,
      error?.files,
      error?.retryAfter,
    );
    if (response.status === 401 && csrf) onSignedOut();
    throw failure;
  }
  return json as T;
}

/** Whether trying the same request later may work: rate limited, unreachable, or the server's own failure. */
export function isTransient(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 429 || error.status === 0 || error.status >= 500);
}

/** The words for any failure (an ApiError, or something thrown in the window). */
export function inWords(error: unknown): string {
  if (error instanceof ApiError) return error.words;
  return error instanceof Error ? error.message : String(error);
}
