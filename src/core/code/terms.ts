// Words of code and of prose, as lexical ranking compares them: identifiers split where their
// words meet (camelCase, PascalCase, snake_case, kebab-case, digits), lowercased. "XMLHttpRequest"
// and "xml_http_request" both give xml, http, request, so a task that says "http request" finds
// either spelling.

// One word inside an identifier: an acronym before a capitalised word (XML|Http), a capitalised
// or lower-case word, an acronym at the end, or a run of digits.
const WORD_PART = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
// Letters and digits; everything else separates (underscores, dashes, dots, slashes, spaces).
const RUN = /[A-Za-z0-9]+/g;

/**
 * The terms of a text: its identifiers split into lower-case words, in order, repeats kept.
 *
 * @example
 * splitTerms('parseHTTPHeader(raw_value)') // ['parse', 'http', 'header', 'raw', 'value']
 */
export function splitTerms(text: string): string[] {
  const terms: string[] = [];
  for (const run of text.matchAll(RUN)) {
    const word = run[0];
    // Most runs are one lower-case word: no second regular expression for them.
    if (!/[A-Z]/.test(word) && !(/[0-9]/.test(word) && /[a-z]/.test(word))) {
      terms.push(word);
      continue;
    }
    for (const part of word.matchAll(WORD_PART)) terms.push(part[0].toLowerCase());
  }
  return terms;
}

/**
 * The identifiers a text names as written (at least 3 characters, starting with a letter, `_` or
 * `$`), without repeats: what a task's words can match against symbol names exactly.
 *
 * @example
 * namedIdentifiers('fix `replaceUrlParam` in client.ts') // ['fix', 'replaceUrlParam', 'client']
 */
export function namedIdentifiers(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]{2,}/g)) seen.add(match[0]);
  return [...seen];
}

/**
 * A term's stem, by a few suffix rules (a light Porter step 1): plural `s` (cookies → cookie, but
 * not class, status, axis), `ing` and `ed` (loading, loaded → load; running → run), and a final
 * `e` (template and templating → templat). Terms of 3 letters or fewer stay as they are.
 *
 * @example stemTerm('params') // 'param'
 */
export function stemTerm(term: string): string {
  if (term.length <= 3) return term;
  let stem = term;
  if (stem.endsWith('s') && !/(ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  if (stem.length > 5 && stem.endsWith('ing')) stem = undouble(stem.slice(0, -3));
  else if (stem.length > 4 && stem.endsWith('ed')) stem = undouble(stem.slice(0, -2));
  if (stem.length > 3 && stem.endsWith('e')) stem = stem.slice(0, -1);
  return stem;
}

// running → runn → run; but not fall, pass, buzz.
function undouble(stem: string): string {
  return /([^aeiouylsz])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

/** Runs of letters and digits already split and stemmed; dropped whole when it grows past this. */
const STEM_CACHE_LIMIT = 100_000;
const stemCache = new Map<string, readonly string[]>();

/**
 * splitTerms, each term stemmed. Words repeat a lot in code, so each distinct run of letters and
 * digits is split and stemmed once.
 *
 * @example stemmedTerms('CookieJars') // ['cooki', 'jar']
 */
export function stemmedTerms(text: string): string[] {
  const terms: string[] = [];
  // A scan by character codes: this runs over every file's text, and a regular expression's
  // match objects cost more than the words.
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    const alphanumeric = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
    if (alphanumeric) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    const word = text.slice(start, i);
    start = -1;
    let parts = stemCache.get(word);
    if (!parts) {
      parts = splitTerms(word).map(stemTerm);
      if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
      stemCache.set(word, parts);
    }
    for (const part of parts) terms.push(part);
  }
  return terms;
}
