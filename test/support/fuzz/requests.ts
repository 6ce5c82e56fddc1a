// Requests for a fuzz target: mostly well-formed with valid or invalid input, and some with
// the wrong method, an odd spelling of the path, bad JSON, a wrong or missing content type,
// odd or contradictory headers, bodies past the size limit.
import fc from 'fast-check';
import type { RawRequest } from '../raw-http.ts';
import { invalidValue, validValue, type Hints, type JsonSchema } from './schema.ts';
import type { FuzzTarget } from './targets.ts';

/** What a server needs from the generator besides its targets. */
export interface FuzzServer {
  /** Prefixes the target paths are served under ('' when the paths are whole). */
  prefixes: string[];
  /** Headers every request carries, unless its identity gives a header of the same name (Host). */
  baseHeaders: [string, string][];
  /**
   * Who a request says it is: headers it carries (credentials, Host, Origin…) and base headers
   * it leaves out. The first is the usual one.
   */
  identities: Identity[];
  /** Other headers a request of this server may carry (API-Version…). */
  extraHeaders?: fc.Arbitrary<[string, string]>;
  /** The largest body the server accepts, in bytes; some requests go one past it. */
  bodyLimit: number;
  hints?: Hints;
}

export interface Identity {
  label: string;
  headers: [string, string][];
  /** Base headers this identity does not send. */
  omits?: string[];
}

/** A request and what the checks need to know of how it was made. */
export interface FuzzRequest extends RawRequest {
  route: FuzzTarget;
  /** Which identity it carried. */
  identity: string;
  /** Well-formed HTTP: the app itself answers (not the HTTP parser). */
  wellFormed: boolean;
  /** Sent as documented: the route's own method and path, its parameters encoded (false: another method, spelling or raw parameters). */
  canonical: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/octet-stream',
  'APPLICATION/JSON',
  '*/*',
  '',
];

/** Bodies that are not JSON, or are JSON only in name. */
const BAD_JSON = fc.constantFrom(
  '',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '{"a":NaN}',
  '\ufeff{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '['.repeat(10_000),
  '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
  'null',
  '0',
  '"just a string"',
  '\u0000',
);

/** Header lines that are odd but legal HTTP. */
const ODD_HEADERS: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['Accept', '*/*;q=0.0, text/html;q=abc'],
    ['Accept-Encoding', 'gzip;q=1e9, br'],
    ['Accept-Language', 'x'.repeat(2000)],
    ['Cookie', 'a=1; a=2; ===; loom_session=%00'],
    ['X-Forwarded-For', '1.2.3.4, not-an-ip, ::1, 999.999.999.999'],
    ['X-Forwarded-Host', 'evil.example'],
    ['X-Forwarded-Proto', 'gopher'],
    ['Forwarded', 'for="_gazonk"; proto=http; by=203.0.113.43'],
    ['Range', 'bytes=0-0'],
    ['If-None-Match', '*'],
    ['Content-Encoding', 'gzip'],
    ['Via', '1.1 ' + 'v'.repeat(500)],
    ['User-Agent', ''],
    ['X-Empty', ''],
    ['Upgrade', 'h2c'],
  ),
  // Latin-1 bytes in a value, legal in HTTP/1.1 (obs-text) though not ASCII.
  fc
    .string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 8 })
    .map((text): [string, string] => ['X-Latin1', text]),
);

/**
 * Ways to break a request at the HTTP level, which the HTTP parser (not the app) refuses:
 * bytes HTTP forbids, headers past the size limit, a missing or doubled Host, contradictory
 * framing, a request line with a space in its target.
 */
const BREAKAGES: fc.Arbitrary<(request: RawRequest) => RawRequest> = fc.constantFrom(
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Control', 'a\u0001b']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Delete', '\u007f']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X Space', 'a name with a space']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Folded', 'a\r\n folded']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Huge', 'h'.repeat(20_000)]] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: r.headers.filter(([name]) => name.toLowerCase() !== 'host') }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['Host', 'second.example']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['Content-Length', 'abc']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['Content-Length', '1'], ['Content-Length', '2']] as [string, string][] }),
  (r: RawRequest) => ({
    ...r,
    headers: [...r.headers, ['Transfer-Encoding', 'chunked'], ['Content-Length', '5']] as [string, string][],
    body: Buffer.from('0\r\n\r\n'),
  }),
  (r: RawRequest) => ({ ...r, headers: [...r.headers, ['Transfer-Encoding', 'gzip, chunked, identity']] as [string, string][] }),
  (r: RawRequest) => ({ ...r, target: `${r.target} x` }),
  (r: RawRequest) => ({ ...r, target: `${r.target}\u0000` }),
);

/** Percent-encodes like encodeURIComponent, lone surrogates included (as the bytes they would have). */
function encodeComponent(text: string): string {
  return text.replace(/[^A-Za-z0-9\-_.!~*'()]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      const unit = char.charCodeAt(0);
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
  });
}

function encodeQuery(values: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    for (const item of [value].flat()) parts.push(`${encodeComponent(key)}=${encodeComponent(typeof item === 'string' ? item : String(JSON.stringify(item)))}`);
  }
  return parts.join('&');
}

/** Whole query strings nobody would write: bad percent escapes, raw bytes, repeated keys. */
const ODD_QUERY = fc.constantFrom(
  '%',
  '%ZZ=1',
  'a=%E0%A4%A',
  'a=%00',
  '&&&',
  '=',
  'a[b]=1&a[c]=2',
  'x=1&x=2&x=3',
  'access_token=abc',
  'é=ü',
  'q=' + 'y'.repeat(5000),
);

/** The path with its parameters filled in; a value that is not an object fills every one. */
function fillPath(template: string, values: unknown, raw: boolean): string {
  const of = (name: string) => (values !== null && typeof values === 'object' && !Array.isArray(values) ? (values as Record<string, unknown>)[name] : values);
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => {
    const value = String(of(name) ?? '');
    return raw ? value : encodeComponent(value);
  });
}

/** Other spellings of a path: the router may or may not treat them as the same route. */
function variantOf(path: string): fc.Arbitrary<string> {
  const letters = [...path.matchAll(/[a-z]/g)].map((match) => match.index!);
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `${path}/`,
        `/${path}`,
        path.replace(/\//g, '//'),
        path.replace(/\/([^/]*)$/, '/./$1'),
        path.replace(/\/([^/]*)$/, '/x/../$1'),
        path.toUpperCase(),
        `${path}%00`,
        `${path};x=1`,
        `${path}#frag`,
      ),
    },
    // One letter percent-encoded: the same route to a router that decodes.
    {
      weight: 1,
      arbitrary: letters.length
        ? fc.constantFrom(...letters).map((at) => `${path.slice(0, at)}%${path.charCodeAt(at).toString(16)}${path.slice(at + 1)}`)
        : fc.constant(path),
    },
  );
}

interface Body {
  bytes?: Buffer;
  contentType?: string;
}

const oversizedBodies = new Map<number, Buffer>();

/** A JSON body a few bytes larger than `limit`. */
function oversized(limit: number): Buffer {
  let body = oversizedBodies.get(limit);
  if (!body) oversizedBodies.set(limit, (body = Buffer.from(`{"pad":"${'p'.repeat(limit)}"}`)));
  return body;
}

function bodyFor(target: FuzzTarget, server: FuzzServer): fc.Arbitrary<Body> {
  const hints = server.hints ?? {};
  const schema: JsonSchema = target.body ?? { type: 'object', additionalProperties: false, properties: {} };
  const form = target.contentTypes.includes('application/x-www-form-urlencoded');
  const declared = target.contentTypes[0] ?? 'application/json';
  const encode = (value: unknown): Buffer =>
    Buffer.from(
      form && value && typeof value === 'object' && !Array.isArray(value) ? encodeQuery(value as Record<string, unknown>) : (JSON.stringify(value) ?? ''),
      'utf8',
    );
  const invalid = invalidValue(schema, hints);
  const options: { weight: number; arbitrary: fc.Arbitrary<Body> }[] = [
    { weight: 8, arbitrary: validValue(schema, hints).map((value) => ({ bytes: encode(value), contentType: declared })) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ bytes: encode(value), contentType: declared })) },
    { weight: 2, arbitrary: BAD_JSON.map((text) => ({ bytes: Buffer.from(text, 'utf8'), contentType: declared })) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ bytes: Buffer.from(bytes), contentType: declared })) },
    {
      weight: 2,
      arbitrary: fc.tuple(validValue(schema, hints), fc.constantFrom(...CONTENT_TYPES)).map(([value, contentType]) => ({ bytes: encode(value), contentType })),
    },
    { weight: 1, arbitrary: validValue(schema, hints).map((value) => ({ bytes: encode(value) })) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ bytes: Buffer.alloc(0), contentType: declared }) },
    // Past the limit, in a body that is otherwise fine (made when drawn, and once).
    { weight: 1, arbitrary: fc.constant(declared).map((contentType) => ({ bytes: oversized(server.bodyLimit), contentType })) },
  ];
  if (invalid) options.push({ weight: 8, arbitrary: invalid.map((value) => ({ bytes: encode(value), contentType: declared })) });
  return fc.oneof(...options);
}

/**
 * Requests for one target of a server: well-formed HTTP (the app answers them), or with
 * `malformed` each broken at the HTTP level in one way (the HTTP parser answers them).
 */
export function requestFor(target: FuzzTarget, server: FuzzServer, malformed = false): fc.Arbitrary<FuzzRequest> {
  const hints = server.hints ?? {};
  const params = target.params
    ? fc.oneof(
        { weight: 8, arbitrary: validValue(target.params, hints) },
        { weight: 2, arbitrary: invalidValue(target.params, hints) ?? validValue(target.params, hints) },
        // A path segment far longer than any parameter takes.
        { weight: 1, arbitrary: fc.constant('s'.repeat(5000)) },
      )
    : fc.constant({});
  const query = target.query
    ? fc.oneof(
        { weight: 4, arbitrary: validValue(target.query, hints).map((value) => encodeQuery(value as Record<string, unknown>)) },
        {
          weight: 2,
          arbitrary: (invalidValue(target.query, hints) ?? validValue(target.query, hints)).map((value) =>
            value && typeof value === 'object' && !Array.isArray(value) ? encodeQuery(value as Record<string, unknown>) : `x=${encodeComponent(String(value))}`,
          ),
        },
        { weight: 1, arbitrary: ODD_QUERY },
      )
    : fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: ODD_QUERY });
  const sendsBody = ['POST', 'PUT', 'PATCH', 'DELETE'];
  return fc
    .record({
      prefix: fc.constantFrom(...server.prefixes),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(target.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      params,
      rawParams: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      variant: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      query,
      identity: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: server.identities.length - 1 }) }),
      extra: fc.oneof(
        { weight: 3, arbitrary: fc.constant([]) },
        { weight: 2, arbitrary: fc.array(server.extraHeaders ?? ODD_HEADERS, { minLength: 1, maxLength: 2 }) },
      ),
      odd: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(ODD_HEADERS, { minLength: 1, maxLength: 2 }) }),
      breakage: malformed ? BREAKAGES : fc.constant(undefined),
      chunked: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      body: bodyFor(target, server),
    })
    .chain((parts) => {
      const path = parts.prefix + fillPath(target.path, parts.params, parts.rawParams);
      const spelled = parts.variant ? variantOf(path) : fc.constant(path);
      return spelled.map((spelling): FuzzRequest => {
        const identity = server.identities[parts.identity]!;
        const own = new Set([...identity.headers.map(([name]) => name), ...(identity.omits ?? [])].map((name) => name.toLowerCase()));
        const base = server.baseHeaders.filter(([name]) => !own.has(name.toLowerCase()));
        const headers: [string, string][] = [...base, ...identity.headers, ...parts.extra, ...parts.odd];
        let body: Buffer | undefined;
        if (sendsBody.includes(parts.method) && parts.body.bytes) {
          body = parts.body.bytes;
          if (parts.body.contentType !== undefined) headers.push(['Content-Type', parts.body.contentType]);
        }
        if (body && parts.chunked) {
          headers.push(['Transfer-Encoding', 'chunked']);
          const chunk = body.length ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')] : [];
          body = Buffer.concat([...chunk, Buffer.from('0\r\n\r\n')]);
        }
        const raw: RawRequest = { method: parts.method, target: encodeTarget(spelling + (parts.query ? `?${parts.query}` : '')), headers, body };
        return {
          ...(parts.breakage ? parts.breakage(raw) : raw),
          route: target,
          identity: identity.label,
          wellFormed: !parts.breakage,
          canonical: !parts.variant && !parts.rawParams && parts.method === target.method,
        };
      });
    });
}

/**
 * A request target as bytes on the wire: printable ASCII as it is (so `%`, `/`, `?` and `#`
 * keep whatever meaning the spelling gave them), everything else percent-encoded as UTF-8 (a
 * raw space or control byte would end the request line).
 */
function encodeTarget(target: string): string {
  return target.replace(/[^\x21-\x7e]/gu, encodeComponent);
}
