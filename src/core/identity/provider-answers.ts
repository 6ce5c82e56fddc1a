// Every answer of a sign-in provider (the code host, an OpenID provider) is read here and only
// here, under the same four bounds: a time limit on the whole exchange (headers and body), no
// redirect followed, a size cap, and a JSON body of the expected shape. Whatever else a provider
// or a proxy in front of it sends (an HTML error page with status 200, an endless or truncated
// body, a field of the wrong type, a redirect that would carry the client secret elsewhere)
// becomes one LoomError upstream_unavailable (502) saying what was asked and what came back,
// never an exception that escapes as a 500. Messages name statuses, media types and schema
// paths, never the body: it may hold tokens.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { LoomError } from '../errors.ts';

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
/** Provider answers are small (a discovery document, a JWKS, a user): far below this. */
export const MAX_PROVIDER_ANSWER_BYTES = 256 * 1024;

const HINT = 'Try signing in again shortly. If it keeps failing, the operator should check the provider and its settings (docs/auth.md).';

/** A schema compiled once, for `readProviderJson`. */
export interface AnswerShape<S extends TSchema> {
  check(value: unknown): value is Static<S>;
  /** The first few problems, as `/path message`. */
  problems(value: unknown): string[];
}

export function answerShape<S extends TSchema>(schema: S): AnswerShape<S> {
  const validator = Compile(schema);
  return {
    check: (value: unknown): value is Static<S> => validator.Check(value),
    problems: (value) =>
      validator
        .Errors(value)
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`),
  };
}

export interface ProviderRequest {
  /** Who is asked, in messages: "code host", "identity provider". */
  provider: string;
  /** What is asked, in messages: "/user", "the token endpoint", "the discovery document". */
  what: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Statuses whose body is an answer (default: 200); any other status is upstream_unavailable. */
  answers?: (status: number) => boolean;
  maxBytes?: number;
}

export interface ProviderAnswer<T> {
  status: number;
  /** The media type the answer came in, lower case, without parameters. */
  mediaType: string;
  body: T;
}

/** The failure of a provider, as the error page or the API shows it. */
export function providerUnavailable(message: string): LoomError {
  return new LoomError('upstream_unavailable', message, HINT);
}

/**
 * Asks a provider and reads its JSON answer within the bounds above; the answer is checked
 * against `shape`. Throws upstream_unavailable for anything but such an answer.
 */
export async function readProviderJson<S extends TSchema>(request: ProviderRequest, shape: AnswerShape<S>): Promise<ProviderAnswer<Static<S>>> {
  const answer = await readProviderAnswer(request);
  return { status: answer!.status, mediaType: answer!.mediaType, body: parseAnswer(request, answer!.text, shape) };
}

/**
 * As readProviderJson, for a resource the provider may not offer: a status in `absent` (e.g.
 * 403, 404) resolves to undefined, without reading the body.
 */
export async function readOptionalProviderJson<S extends TSchema>(
  request: ProviderRequest,
  shape: AnswerShape<S>,
  absent: readonly number[],
): Promise<Static<S> | undefined> {
  const answer = await readProviderAnswer(request, absent);
  return answer && parseAnswer(request, answer.text, shape);
}

function parseAnswer<S extends TSchema>(request: ProviderRequest, text: string, shape: AnswerShape<S>): Static<S> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw providerUnavailable(`The ${request.provider}'s answer to ${request.what} is not valid JSON.`);
  }
  if (!shape.check(body)) {
    throw providerUnavailable(`The ${request.provider}'s answer to ${request.what} is not what Loom expects: ${shape.problems(body).join('; ')}.`);
  }
  return body;
}

/**
 * The bounded exchange itself: the answer's text when its status is one of `answers` and it
 * says it is JSON; undefined (body unread) when its status is in `absent`.
 */
async function readProviderAnswer(
  request: ProviderRequest,
  absent: readonly number[] = [],
): Promise<{ status: number; mediaType: string; text: string } | undefined> {
  const { provider, what } = request;
  const timedOut = () => providerUnavailable(`The ${provider} did not answer ${what} within ${request.timeoutMs} ms.`);
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
      // A redirect is a surprise: following it would send the code, the client secret or the
      // user's token to an address nobody configured.
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw providerUnavailable(`The ${provider} could not be reached for ${what}${describeCause(error)}.`);
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (absent.includes(response.status)) {
    await discard(response);
    return undefined;
  }
  if (response.status >= 300 && response.status < 400) {
    await discard(response);
    throw providerUnavailable(`The ${provider} redirected ${what} elsewhere (${response.status}); Loom does not follow redirects from sign-in providers.`);
  }
  if (!(request.answers ?? isOk)(response.status)) {
    await discard(response);
    throw providerUnavailable(`The ${provider} answered ${what} with status ${response.status}.`);
  }
  if (!isJson(mediaType)) {
    await discard(response);
    throw providerUnavailable(`The ${provider} answered ${what} with ${printable(mediaType) || 'no content type'}, not JSON.`);
  }
  const maxBytes = request.maxBytes ?? MAX_PROVIDER_ANSWER_BYTES;
  let bytes: Buffer | undefined;
  try {
    bytes = await readCapped(response, maxBytes);
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw providerUnavailable(`The ${provider}'s answer to ${what} broke off${describeCause(error)}.`);
  }
  if (!bytes) throw providerUnavailable(`The ${provider}'s answer to ${what} is larger than ${Math.round(maxBytes / 1024)} KiB.`);
  return { status: response.status, mediaType, text: bytes.toString('utf8') };
}

/** `application/json`, or a JSON-based type such as `application/jwk-set+json`. */
export function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType);
}

function isOk(status: number): boolean {
  return status === 200;
}

/** The body, or undefined once it grows past `maxBytes` (the rest is never read). */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await discard(response);
    return undefined;
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function describeCause(error: unknown): string {
  const code = ((error as { cause?: NodeJS.ErrnoException })?.cause ?? (error as NodeJS.ErrnoException))?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : '';
}

/** A provider-chosen string fit for a message: printable ASCII, at most 80 characters. */
export function printable(text: string, max = 80): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
