// Code-aware words for the ranked (BM25) search: an identifier is indexed whole and split at
// its humps, underscores and digits, lower-cased, so that `getUserName`, `get_user_name` and
// `GetUserName` are one term (`getusername`) and each also answers `user`. `HTTPServer2` gives
// `httpserver2`, `http`, `server`, `2`. The same function turns a query into terms, so a query
// is split exactly as the code was.

/** Longest word indexed: longer runs are hashes, base64 or data, not names anyone searches. */
const MAX_WORD = 64;
/** A term counts at most this often in one chunk: BM25's term frequency saturates anyway, and the index stays small. */
const MAX_REPEATS = 3;

/** Splits cached across calls (identifiers repeat a lot); dropped whole when it grows past this. */
const SPLIT_CACHE_LIMIT = 50_000;
const splitCache = new Map<string, readonly string[]>();

/** Character kinds, as numbers (the scan runs on every byte of the workspace). */
const Kind = { Other: 0, Lower: 1, Upper: 2, Digit: 3, Underscore: 4 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/** An ASCII character's kind by code; non-ASCII letters and digits are decided by classify(). */
const ASCII = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  if (code >= 97 && code <= 122) ASCII[code] = Kind.Lower;
  else if (code >= 65 && code <= 90) ASCII[code] = Kind.Upper;
  else if (code >= 48 && code <= 57) ASCII[code] = Kind.Digit;
  else if (code === 95) ASCII[code] = Kind.Underscore;
}
const LETTER = /\p{L}/u;
const UPPER = /\p{Lu}/u;
const NUMBER = /\p{N}/u;

function classify(text: string, index: number): Kind {
  const code = text.charCodeAt(index);
  if (code < 128) return ASCII[code] as Kind;
  const char = text[index]!;
  if (LETTER.test(char)) return UPPER.test(char) ? Kind.Upper : Kind.Lower;
  if (NUMBER.test(char)) return Kind.Digit;
  // Surrogate halves of astral letters are rare in code; they end a word.
  return Kind.Other;
}

/**
 * An identifier's parts, lower-cased: split at underscores, lower→upper humps, the end of an
 * acronym (`HTTPServer` → http, server) and letter↔digit changes.
 *
 * @example splitIdentifier('parseHTTPResponse2xx') // ['parse', 'http', 'response', '2', 'xx']
 */
export function splitIdentifier(word: string): readonly string[] {
  const cached = splitCache.get(word);
  if (cached) return cached;
  const parts: string[] = [];
  let start = -1;
  let previous: Kind = Kind.Other;
  for (let i = 0; i < word.length; i++) {
    const kind = classify(word, i);
    if (kind === Kind.Underscore || kind === Kind.Other) {
      if (start >= 0) parts.push(word.slice(start, i).toLowerCase());
      start = -1;
      previous = kind;
      continue;
    }
    if (start < 0) start = i;
    else {
      const hump = previous === Kind.Lower && kind === Kind.Upper;
      const digitChange = (previous === Kind.Digit) !== (kind === Kind.Digit);
      // The last capital of an acronym starts the next word: HTTPServer → HTTP | Server.
      const acronymEnd = previous === Kind.Upper && kind === Kind.Upper && i + 1 < word.length && classify(word, i + 1) === Kind.Lower;
      if (hump || digitChange || acronymEnd) {
        parts.push(word.slice(start, i).toLowerCase());
        start = i;
      }
    }
    previous = kind;
  }
  if (start >= 0) parts.push(word.slice(start).toLowerCase());
  if (splitCache.size >= SPLIT_CACHE_LIMIT) splitCache.clear();
  splitCache.set(word, parts);
  return parts;
}

/**
 * The terms an identifier is indexed under: itself, lower-cased without underscores, and its
 * parts when it has more than one.
 *
 * @example identifierTerms('get_user_name') // ['getusername', 'get', 'user', 'name']
 */
export function identifierTerms(word: string): string[] {
  const parts = splitIdentifier(word);
  if (parts.length === 0) return [];
  const whole = parts.join('');
  return parts.length > 1 ? [whole, ...parts] : [whole];
}

/**
 * Calls `sink` with every word of `text` (a run of letters, digits and underscores, at most 64
 * long) in order.
 */
export function forEachWord(text: string, sink: (word: string) => void): void {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const kind = i < text.length ? classify(text, i) : Kind.Other;
    if (kind !== Kind.Other) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start <= MAX_WORD) sink(text.slice(start, i));
    start = -1;
  }
}

/**
 * The terms of a stretch of text as one space-separated string for the full-text index, each
 * term at most MAX_REPEATS times.
 *
 * @example termsOfText('const userName = getUserName()') // 'const username user name getusername get'
 */
export function termsOfText(text: string): string {
  const counts = new Map<string, number>();
  forEachWord(text, (word) => {
    for (const term of identifierTerms(word)) counts.set(term, (counts.get(term) ?? 0) + 1);
  });
  return joinTerms(counts);
}

/** Terms of names (a chunk's definitions), each once per occurrence, capped like termsOfText. */
export function termsOfNames(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) forEachWord(name, (word) => identifierTerms(word).forEach((term) => counts.set(term, (counts.get(term) ?? 0) + 1)));
  return joinTerms(counts);
}

function joinTerms(counts: Map<string, number>): string {
  const out: string[] = [];
  for (const [term, count] of counts) for (let i = 0; i < Math.min(count, MAX_REPEATS); i++) out.push(term);
  return out.join(' ');
}

/**
 * A query's distinct terms, split as code is: whole identifiers first, then their parts.
 *
 * @example queryTerms('parse config_file') // ['parse', 'configfile', 'config', 'file']
 */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  forEachWord(query, (word) => identifierTerms(word).forEach((term) => terms.add(term)));
  return [...terms];
}
