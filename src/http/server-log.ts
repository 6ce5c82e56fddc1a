// The servers' logs, shared by both app builders: JSON lines (pino) on stdout, written
// asynchronously. What a line may hold is decided here, by construction:
//
// - one line per request, written when the response is done: method, the route's pattern
//   (never the URL: query strings carry authorization codes, states and tickets), status,
//   time taken and the request id. No header, no body, no parameter.
// - errors through a serializer that keeps an error's type, code, message and stack, the latter
//   two with anything that looks like a secret redacted (a URL's query string or password, a
//   bearer token…); never the error's other properties (a driver's config, a request's headers).
// - every other string a log call is given (messages, fields) redacted the same way.
//
// It is also cheap, as a server's default log must be: it adds no hook and no listener to a
// request. Fastify itself is given no logger (with one, it hangs two listeners and a closure on
// every response to time it and report its end, and makes each request's logger through a path
// that checks it method by method). It still tells its log controller of every request it
// takes, before any hook runs: there each request gets its logger (`request.log`, a pino child
// made only if used), which is also the request's record for its line: when it began, its id,
// its route's pattern. The line is written from Node's own report that a response finished (the
// diagnostics channel `http.server.response.finish`), assembled by hand and written in batches
// (log-destination.ts).
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import os from 'node:os';
import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { stdoutLog, type LogDestination } from './log-destination.ts';
import { redactSecrets } from './redact-secrets.ts';

export type { LogDestination };

export interface ServerLogOptions {
  /** A pino level, or `silent` for no logger at all. */
  level: string;
  /** Where lines go; stdout (asynchronously) by default. */
  destination?: LogDestination;
}

type LoggingOptions = Pick<FastifyServerOptions, 'logController' | 'genReqId'>;

/** A server's log: the options its Fastify app is made with, and what is wired once it exists. */
export interface ServerLog {
  /** Spread into `Fastify({...})`. */
  fastifyOptions: LoggingOptions;
  /**
   * Gives the app its logger (`app.log`) and its request lines; call it right after `Fastify()`,
   * before any route. An app that takes WebSocket upgrades says so: Node's HTTP server never
   * reports the answer to an upgrade request, so the line of a refused one is written from a
   * hook of its own (and that of one that succeeds through `upgraded`).
   */
  attach(app: FastifyInstance, options?: { upgrades?: boolean }): void;
  /**
   * Writes the line of an upgrade that succeeded (status 101): its answer is written by the
   * WebSocket server on the socket, which Node's HTTP server never sees finish.
   */
  upgraded(request: IncomingMessage): void;
}

/**
 * A server's log. `silent` builds no logger at all: Fastify keeps its own that does nothing.
 *
 * @example
 * const log = serverLog({ level: 'info' });
 * const app = Fastify({ ...log.fastifyOptions, bodyLimit: 1024 });
 * log.attach(app);
 */
export function serverLog(options: ServerLogOptions): ServerLog {
  if (options.level === 'silent') return { fastifyOptions: {}, attach: () => {}, upgraded: () => {} };
  const destination = options.destination ?? stdoutLog();
  // pino's default base, stated so that request lines (written without pino) carry it too.
  const base = { pid: process.pid, hostname: os.hostname() };
  const logger = pino(
    {
      level: options.level,
      base,
      serializers: { err: safeError, error: safeError, req: safeRequest, res: safeReply },
      hooks: { logMethod: redactArguments },
    },
    destination,
  );
  const requestLine = logger.isLevelEnabled('info') ? requestLineWriter(logger.levels.values.info!, base, destination) : undefined;
  return {
    fastifyOptions: { logController: new RequestLog(logger, requestLine !== undefined), genReqId: nextRequestId },
    attach(app, { upgrades = false } = {}) {
      app.log = logger as FastifyBaseLogger;
      if (requestLine) logRequests(app, requestLine, upgrades);
    },
    upgraded(request) {
      requestLine?.(request, SWITCHING_PROTOCOLS);
    },
  };
}

/** The last request id given, shared by every server in the process. */
let lastRequestId = 0;

/**
 * Request ids as Fastify makes them (`req-1`, `req-2`, … `req-1a`), but from one sequence for
 * every server in the process: under `loom up` both servers write to the same stdout, and each
 * counting on its own would give two requests the same id. Wraps, as Fastify's does, before
 * the counter stops being a small integer.
 */
function nextRequestId(): string {
  lastRequestId = lastRequestId === 0x7fffffff ? 1 : lastRequestId + 1;
  return `req-${lastRequestId.toString(36)}`;
}

/** A request's record for its line, kept on Node's request object until its response is done. */
const RECORD = Symbol('loom.requestRecord');

// `upgrade`: Node sets it on a request that came through the server's 'upgrade' event (its types omit it).
type TrackedMessage = IncomingMessage & { upgrade?: boolean; [RECORD]?: LazyChildLogger };

/**
 * Writes a line for each response of `app` (whose requests were recorded by RequestLog), when
 * Node reports the response finished. An upgrade's answer never comes back through Node's HTTP
 * server (the WebSocket plugin answers it on the socket): where upgrades are taken, its line is
 * written on its own response's `finish`.
 */
function logRequests(app: FastifyInstance, requestLine: RequestLineWriter, upgrades: boolean): void {
  if (upgrades) {
    app.addHook('onRequest', (request, reply, done) => {
      const raw = request.raw as TrackedMessage;
      if (raw.upgrade) reply.raw.once('finish', () => requestLine(raw, reply.raw));
      done();
    });
  }
  const server = app.server;
  const finished = (message: unknown): void => {
    const report = message as { request: TrackedMessage; response: ServerResponse; server: Server };
    if (report.server === server) requestLine(report.request, report.response);
  };
  diagnosticsChannel.subscribe('http.server.response.finish', finished);
  app.addHook('onClose', (_instance, done) => {
    diagnosticsChannel.unsubscribe('http.server.response.finish', finished);
    done();
  });
}

/**
 * A process's own log, for what is not a server (`loom worker`): the same JSON lines, the same
 * redaction of secrets and errors. Undefined for `silent`.
 *
 * @example
 * const log = processLogger({ level: 'info' });
 * log?.info({ concurrency: 2 }, 'worker taking composer sessions');
 */
export function processLogger(options: ServerLogOptions): pino.Logger | undefined {
  if (options.level === 'silent') return undefined;
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, hostname: os.hostname() },
      serializers: { err: safeError, error: safeError },
      hooks: { logMethod: redactArguments },
    },
    options.destination ?? stdoutLog(),
  );
}

type LogArguments = Parameters<pino.LogFn>;

/**
 * A request's logger (`request.log`), made when first used: most requests log nothing but their
 * request line, and a pino child logger costs several objects per request. It is also the
 * request's record for that line: when it began, its id and its route's pattern.
 */
class LazyChildLogger {
  private made: pino.Logger | undefined;
  readonly startedAt = performance.now();

  constructor(
    private readonly parent: pino.Logger,
    /** Fastify's id of the request, which each of its lines carries as `reqId`. */
    readonly requestId: string,
    /** The pattern of the route that answers (`/api/v1/keys/:id`); undefined when none does. */
    readonly route: string | undefined,
  ) {}

  private get logger(): pino.Logger {
    return (this.made ??= this.parent.child({ reqId: this.requestId }));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: LogArguments): void {
    this.logger.fatal(...args);
  }

  error(...args: LogArguments): void {
    this.logger.error(...args);
  }

  warn(...args: LogArguments): void {
    this.logger.warn(...args);
  }

  info(...args: LogArguments): void {
    this.logger.info(...args);
  }

  debug(...args: LogArguments): void {
    this.logger.debug(...args);
  }

  trace(...args: LogArguments): void {
    this.logger.trace(...args);
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): pino.Logger {
    return this.logger.child(bindings, options);
  }
}

/** What a request's line needs of its answer. */
type Answer = Pick<ServerResponse, 'statusCode'>;

type RequestLineWriter = (request: TrackedMessage, response: Answer) => void;

const SWITCHING_PROTOCOLS: Answer = { statusCode: 101 };

/**
 * Writes a request's line in pino's format (level, time, pid, hostname, then its own fields),
 * assembled by hand: every field is known safe and of a known type, so nothing needs pino's
 * serializers or redaction, and a request costs one string and one write. What is the same from
 * line to line is made once: the text up to the request id, once a millisecond (printing a
 * 13-digit time costs more than the rest of the line), and, per method and route, the text from
 * the method to the status.
 */
function requestLineWriter(level: number, base: Record<string, unknown>, destination: LogDestination): RequestLineWriter {
  const head = `{"level":${level},"time":`;
  const bindings = JSON.stringify(base).slice(1, -1);
  const afterTime = `${bindings ? `,${bindings}` : ''},"reqId":`;
  // Methods are few (Node parses known methods only) and so are route patterns (registered).
  const middles = new Map<string, Map<string | undefined, string>>();
  const middle = (method: string, route: string | undefined): string => {
    let byRoute = middles.get(method);
    if (byRoute === undefined) middles.set(method, (byRoute = new Map()));
    let text = byRoute.get(route);
    if (text === undefined) {
      text = `,"method":${JSON.stringify(method)}${route === undefined ? '' : `,"route":${JSON.stringify(route)}`},"status":`;
      byRoute.set(route, text);
    }
    return text;
  };
  const unnoted = `${bindings ? `,${bindings}` : ''},"method":`;
  let lastTime = 0;
  let upToId = '';
  return (raw, response) => {
    const record = raw[RECORD];
    const time = Date.now();
    if (record === undefined) {
      // Answered before Fastify looked for a route (a URL that is not one, where no framework
      // error handler is set): what the server knows is its status.
      destination.write(head + time + unnoted + JSON.stringify(raw.method ?? '') + ',"status":' + response.statusCode + LINE_END);
      return;
    }
    if (time !== lastTime) {
      lastTime = time;
      upToId = head + time + afterTime;
    }
    destination.write(
      upToId +
        quoteId(record.requestId) +
        middle(raw.method ?? '', record.route) +
        response.statusCode +
        ',"ms":' +
        hundredths(performance.now() - record.startedAt) +
        LINE_END,
    );
  };
}

const LINE_END = ',"msg":"request"}\n';

/** The servers' request ids (`req-1a`, nextRequestId) need no escaping: quoted by hand, which is much cheaper than JSON.stringify. */
function quoteId(id: string): string {
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    // A control character, a quote, a backslash or anything past ASCII: JSON's own quoting.
    if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) return JSON.stringify(id);
  }
  return `"${id}"`;
}

/**
 * A duration in ms as JSON with at most two decimals, as `Math.round(ms * 100) / 100` prints
 * (1.5, 2, 0.07), from integers: printing a fractional double is several times slower.
 */
function hundredths(ms: number): string {
  const total = Math.round(ms * 100);
  const whole = Math.trunc(total / 100);
  const fraction = total - whole * 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

/**
 * Fastify's request logging, replaced: no "incoming request" line, no "request completed" line
 * (logRequests writes the one line a request gets), and no line that repeats a request's URL
 * (Fastify's own not-found line does).
 */
class RequestLog extends LogController {
  constructor(
    private readonly logger: pino.Logger,
    /** Whether requests get a line, and so a record kept for it. */
    private readonly recorded: boolean,
  ) {
    super();
  }

  /**
   * Every request Fastify takes (routed, not found, or a URL that does not decode) passes here
   * before any hook: it gets its logger, for itself and its reply, and the logger is its record.
   */
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    // is404 is cheap; routeOptions builds an object, so it is read only where a route answers.
    const child = new LazyChildLogger(this.logger, request.id, request.is404 ? undefined : request.routeOptions.url);
    request.log = reply.log = child as unknown as FastifyBaseLogger;
    if (this.recorded) (request.raw as TrackedMessage)[RECORD] = child;
  }

  /** Called only where an onResponse hook makes Fastify watch responses; the line is logRequests' job. */
  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    // An error here is the response stream's (the client went away mid-body); handlers' errors
    // were answered and logged by the error handler already.
    if (error) reply.log.warn({ err: error, status: reply.statusCode }, 'the response failed');
  }

  /** Errors the default handler sends: 5xx are logged with the error, 4xx by the request line alone. */
  override defaultErrorLog(error: Error, _request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) reply.log.error({ err: error }, 'unhandled error');
  }

  override routeNotFound(): void {}

  override streamError(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply): void {
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') reply.log.warn({ err: error }, 'the response failed after its headers were sent');
  }

  override writeHeadError(error: Error, _request: FastifyRequest, reply: FastifyReply): void {
    reply.log.warn({ err: error }, 'could not write the response headers');
  }

  override serializerError(error: Error, _request: FastifyRequest, reply: FastifyReply, metadata: { statusCode: number }): void {
    reply.log.error({ err: error, status: metadata.statusCode }, 'could not serialise the response');
  }

  /** Fastify's own refusal while closing comes before the request has a logger of ours. */
  override serviceUnavailable(): void {
    this.logger.info({ status: 503 }, 'refused a request: the server is closing');
  }
}

/** What is logged of an error: type, code, message and stack (redacted), and its causes. */
function safeError(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (!(value instanceof Error)) return value === undefined || value === null ? value : redactSecrets(String(value));
  const error = value as Error & { code?: unknown; statusCode?: unknown; errors?: unknown };
  const safe: Record<string, unknown> = { type: error.name, message: redactSecrets(error.message) };
  if ((typeof error.code === 'string' && /^[\w.-]{1,64}$/.test(error.code)) || typeof error.code === 'number') safe.code = error.code;
  if (typeof error.statusCode === 'number') safe.statusCode = error.statusCode;
  if (error.stack) safe.stack = redactSecrets(error.stack);
  if (depth < 3) {
    if (error.cause !== undefined) safe.cause = safeError(error.cause, depth + 1);
    if (Array.isArray(error.errors)) safe.errors = error.errors.slice(0, 5).map((inner) => safeError(inner, depth + 1));
  }
  return safe;
}

/** A request, should one be logged: its method and route pattern, never its URL or headers. */
function safeRequest(request: { method?: string; routeOptions?: { url?: string } }): unknown {
  return { method: request.method, route: request.routeOptions?.url };
}

function safeReply(reply: { statusCode?: number }): unknown {
  return { status: reply.statusCode };
}

/**
 * pino's hook in front of every log call: strings among the arguments, and the string fields of
 * an object argument (one level deep, arrays of strings included), are redacted. Errors are left
 * to the `err` serializer.
 */
function redactArguments(this: pino.Logger, args: unknown[], method: pino.LogFn): void {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (typeof arg === 'string') args[index] = redactSecrets(arg);
    else if (index === 0 && arg !== null && typeof arg === 'object' && !(arg instanceof Error)) args[0] = redactFields(arg as Record<string, unknown>);
  }
  // Given an error and no message (`log.warn({ err })`, as Fastify logs a reply sent twice), pino
  // takes the error's own message as the line's, past every serializer: give it one, redacted.
  if (args.length === 1) {
    const error = args[0] instanceof Error ? args[0] : (args[0] as { err?: unknown } | null | undefined)?.err;
    if (error instanceof Error) args.push(redactSecrets(error.message));
  }
  method.apply(this, args as Parameters<pino.LogFn>);
}

function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    let safe = value;
    if (typeof value === 'string') safe = redactSecrets(value);
    else if (Array.isArray(value)) safe = value.map((item) => (typeof item === 'string' ? redactSecrets(item) : item));
    else continue;
    if (safe !== value || Array.isArray(value)) (copy ??= { ...fields })[key] = safe;
  }
  return copy ?? fields;
}
