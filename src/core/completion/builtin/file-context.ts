// The current-file cache: the live text of the request, as token ids in two OccurrenceIndexes,
// the text before the cursor (the context) and a window of the text after it. The part
// before the cursor is kept per document and re-lexed incrementally: a keystroke re-lexes
// from the last line start before the change, not the whole file.

import { OccurrenceIndex } from './occurrence-index.ts';
import { lex, type LexResult } from './tokenizer.ts';
import type { Keys } from './evidence.ts';
import { BOUNDARY, LOCAL_BASE, LocalVocabulary, type Vocabulary } from './vocabulary.ts';

/** How much of the text after the cursor the cache indexes (code nearby repeats most). */
export const SUFFIX_WINDOW = 8192;

export class FileContext {
  /** BOUNDARY then the tokens before the cursor (the pending token left out). */
  readonly before = new OccurrenceIndex(1024, (id) => this.vocabulary.key(id));
  /** BOUNDARY then the tokens of the suffix window. */
  after = new OccurrenceIndex(256, (id) => this.vocabulary.key(id));
  /** The unfinished token at the cursor (see LexResult.pending). */
  pending = '';
  /** The text after the cursor up to the end of its line. */
  suffixLine = '';
  vocabulary: LocalVocabulary;
  /**
   * What the context's tokens match as: a string literal by its class (vocabulary.ts), and in
   * a context as any string literal when neither the project nor the rest of the file has it
   * (`name: 'push', ` then matches `name: 'billing', `); otherwise only as itself.
   */
  readonly keys: Keys = {
    keyOf: (id) => this.vocabulary.key(id),
    loose: (id) => id >= LOCAL_BASE && this.before.localCount(id) <= 1 && this.after.localCount(id) === 0,
  };
  private prefix = '';
  private lexed: LexResult = { tokens: [], ends: [], safe: [], pending: '' };
  private suffix: string | undefined;

  constructor(private readonly project: Vocabulary) {
    this.vocabulary = new LocalVocabulary(project);
    this.before.append([BOUNDARY]);
  }

  /** Brings the cache to the request's text. */
  update(prefix: string, suffix: string): void {
    if (this.vocabulary.stale()) this.reset();
    this.updatePrefix(prefix);
    if (suffix !== this.suffix) this.updateSuffix(suffix);
  }

  private reset(): void {
    this.vocabulary = new LocalVocabulary(this.project);
    this.prefix = '';
    this.lexed = { tokens: [], ends: [], safe: [], pending: '' };
    this.before.truncate(1);
    this.suffix = undefined;
  }

  private updatePrefix(prefix: string): void {
    if (prefix === this.prefix) return;
    const keep = this.reusableTokens(prefix);
    const { tokens, ends, safe } = this.lexed;
    tokens.length = keep;
    ends.length = keep;
    safe.length = keep;
    const start = keep > 0 ? ends[keep - 1]! : 0;
    lex(prefix, { partial: true }, start, this.lexed);
    this.before.truncate(keep + 1);
    const ids = new Int32Array(tokens.length - keep);
    for (let i = keep; i < tokens.length; i++) ids[i - keep] = this.vocabulary.id(tokens[i]!);
    this.before.append(ids);
    this.pending = this.lexed.pending;
    this.prefix = prefix;
  }

  /** How many tokens of the last lex still hold: those up to a safe line break before the change. */
  private reusableTokens(prefix: string): number {
    const old = this.prefix;
    let common = 0;
    if (prefix.startsWith(old)) common = old.length;
    else {
      const most = Math.min(old.length, prefix.length);
      while (common < most && old.charCodeAt(common) === prefix.charCodeAt(common)) common++;
    }
    const { tokens, ends, safe } = this.lexed;
    // Binary search: the last token that ends strictly before the change.
    let low = 0;
    let high = ends.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ends[middle]! < common) low = middle + 1;
      else high = middle;
    }
    for (let i = low - 1; i >= 0; i--) if (tokens[i] === '\n' && safe[i]) return i + 1;
    return 0;
  }

  private updateSuffix(suffix: string): void {
    this.suffix = suffix;
    const lineEnd = suffix.search(/\r|\n/);
    this.suffixLine = lineEnd < 0 ? suffix : suffix.slice(0, lineEnd);
    const window = suffix.length > SUFFIX_WINDOW ? suffix.slice(0, SUFFIX_WINDOW) : suffix;
    const { tokens } = lex(window);
    const ids = new Int32Array(tokens.length + 1);
    ids[0] = BOUNDARY;
    for (let i = 0; i < tokens.length; i++) ids[i + 1] = this.vocabulary.id(tokens[i]!);
    this.after = new OccurrenceIndex(Math.max(256, ids.length), (id) => this.vocabulary.key(id));
    this.after.append(ids);
  }
}
