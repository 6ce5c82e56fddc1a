// The anchor of the quality benchmark: a plain interpolated n-gram model of order 4 with
// absolute discounting, over the same tokens as the builtin model, mixed with a cache of the
// current file (the same n-gram over the tokens before the cursor), and suggesting greedily
// while the next token's probability stays above a threshold, up to the end of the line.
// It is what a textbook token n-gram completer does; the builtin model is scored next to it.
import { lex } from '../../src/core/completion/builtin/tokenizer.ts';

const ORDER = 4;
const DISCOUNT = 0.75;
/** Weight of the file cache in the mixture. */
const CACHE_WEIGHT = 0.3;
const NEWLINE = '\n';

class NGramCounts {
  /** context key → follower → count, for each order 0..ORDER-1 of context length. */
  private readonly tables: Map<string, Map<string, number>>[] = Array.from({ length: ORDER }, () => new Map());
  private readonly totals: Map<string, number>[] = Array.from({ length: ORDER }, () => new Map());

  add(tokens: string[], from = 0): void {
    for (let i = from; i < tokens.length; i++) this.addAt(tokens, i);
  }

  addAt(tokens: string[], i: number): void {
    const next = tokens[i]!;
    for (let n = 0; n < ORDER; n++) {
      if (i - n < 0) break;
      const key = tokens.slice(i - n, i).join('\u0001');
      let followers = this.tables[n]!.get(key);
      if (!followers) this.tables[n]!.set(key, (followers = new Map()));
      followers.set(next, (followers.get(next) ?? 0) + 1);
      this.totals[n]!.set(key, (this.totals[n]!.get(key) ?? 0) + 1);
    }
  }

  /** Interpolated absolute discounting, from order 0 (unigram, over a uniform floor) up. */
  probability(context: string[], word: string, vocabularySize: number): number {
    let p = 1 / vocabularySize;
    for (let n = 0; n < ORDER; n++) {
      if (context.length < n) break;
      const key = context.slice(context.length - n).join('\u0001');
      const followers = this.tables[n]!.get(key);
      if (!followers) break;
      const total = this.totals[n]!.get(key)!;
      const count = followers.get(word) ?? 0;
      p = Math.max(count - DISCOUNT, 0) / total + ((DISCOUNT * followers.size) / total) * p;
    }
    return p;
  }

  /** Followers seen after the longest known context (the candidates for the argmax). */
  candidates(context: string[], into: Set<string>): void {
    for (let n = Math.min(ORDER - 1, context.length); n >= 1; n--) {
      const followers = this.tables[n]!.get(context.slice(context.length - n).join('\u0001'));
      if (followers) {
        for (const word of followers.keys()) into.add(word);
        if (n >= 2) return;
      }
    }
  }

  get vocabularySize(): number {
    return this.tables[1]!.size + 1;
  }
}

export class BaselineModel {
  private readonly global = new NGramCounts();

  constructor(
    trainingTexts: string[],
    /** Lowest probability of a token to keep suggesting. */
    readonly threshold = 0.6,
  ) {
    for (const text of trainingTexts) this.global.add(['\u0000', ...lex(text).tokens]);
  }

  /** A scorer for one held-out file, whose cache grows as its cursors move down. */
  forFile(text: string): BaselineFile {
    return new BaselineFile(this, this.global, text);
  }
}

export class BaselineFile {
  private readonly tokens: string[];
  private readonly ends: number[];
  private readonly cache = new NGramCounts();
  private cached = 0;

  constructor(
    private readonly model: BaselineModel,
    private readonly global: NGramCounts,
    text: string,
  ) {
    const lexed = lex(text);
    this.tokens = ['\u0000', ...lexed.tokens];
    this.ends = [0, ...lexed.ends];
  }

  /** The greedy suggestion at `cursor` (a token boundary), and its first token alone. */
  suggest(cursor: number, maxTokens = 48): { text: string; first: string } {
    // Tokens that end at or before the cursor form the context; cursors only move forward.
    let count = this.cached;
    while (count < this.tokens.length && this.ends[count]! <= cursor) count++;
    this.cache.add(this.tokens.slice(0, count), this.cached);
    this.cached = count;
    const context = this.tokens.slice(Math.max(0, count - ORDER), count);
    let text = '';
    let first = '';
    for (let step = 0; step < maxTokens; step++) {
      const { word, p } = this.best(context);
      if (step === 0) first = word === NEWLINE ? '' : word;
      if (word === NEWLINE || p < this.model.threshold) break;
      text += word;
      context.push(word);
      context.shift();
    }
    return { text, first };
  }

  private best(context: string[]): { word: string; p: number } {
    const candidates = new Set<string>();
    this.global.candidates(context, candidates);
    this.cache.candidates(context, candidates);
    let word = NEWLINE;
    let p = 0;
    const vocabularySize = this.global.vocabularySize;
    for (const candidate of candidates) {
      const q =
        (1 - CACHE_WEIGHT) * this.global.probability(context, candidate, vocabularySize) +
        CACHE_WEIGHT * this.cache.probability(context, candidate, vocabularySize);
      if (q > p) {
        word = candidate;
        p = q;
      }
    }
    return { word, p };
  }
}
