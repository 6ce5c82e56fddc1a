// How many tokens a text costs a model, estimated without a tokenizer: byte-pair encoders
// (cl100k, o200k, Llama's) give a common word one token, each hump of an identifier about one,
// most punctuation one each, and a run of indentation one. Counting those pieces comes closer
// to such tokenizers on code than characters / 4, which undercounts punctuation-heavy lines.

// A word or one hump of an identifier (parse|Url, HTTP|Server), digits, a run of blanks, a
// line break, or any one other character.
const PIECE = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[ \t]+|\r?\n|[^A-Za-z0-9 \t\r\n]/g;
/** Letters one token covers in a long word. */
const LETTERS_PER_TOKEN = 8;
/** Digits one token covers. */
const DIGITS_PER_TOKEN = 3;

/**
 * The estimated token count of `text`.
 *
 * @example estimateTokens('export function parseUrl(url: string): URL {') // 12
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    const first = piece.charCodeAt(0);
    // One blank joins the word after it (" parse" is one token); more is one token of indentation.
    if (first === 32 || first === 9) tokens += piece.length > 1 ? 1 : 0;
    else if (first >= 48 && first <= 57) tokens += Math.ceil(piece.length / DIGITS_PER_TOKEN);
    else if ((first >= 65 && first <= 90) || (first >= 97 && first <= 122)) tokens += Math.ceil(piece.length / LETTERS_PER_TOKEN);
    else tokens++;
  }
  return tokens;
}
