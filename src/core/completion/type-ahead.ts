// Type-ahead: a user typing the characters of the suggestion on screen gets the rest of it
// without another model call. One entry per document (and caller), least recently used evicted.
// Only the text near the cursor is compared: a change far above it does not change what the
// suggestion was for, and comparing whole files on every keystroke would cost more than it saves.
// The text after the cursor is the same, so what was fitted to it (suffix-overlap.ts) still
// fits: the rest keeps its continuation.
import type { Continuation } from './suffix-overlap.ts';

const WINDOW = 512;

interface Shown {
  model: string;
  prefixLength: number;
  prefixTail: string;
  suffixHead: string;
  completion: string;
  continuation?: Continuation;
  tokens: number;
}

export class TypeAheadCache {
  private readonly entries = new Map<string, Shown>();

  constructor(private readonly capacity = 1000) {}

  /** Remembers what was suggested at a cursor. Empty completions are not worth remembering. */
  remember(key: string, shown: { model: string; prefix: string; suffix: string; completion: string; continuation?: Continuation; tokens: number }): void {
    this.entries.delete(key);
    if (shown.completion === '') return;
    this.entries.set(key, {
      model: shown.model,
      prefixLength: shown.prefix.length,
      prefixTail: shown.prefix.slice(-WINDOW),
      suffixHead: shown.suffix.slice(0, WINDOW),
      completion: shown.completion,
      ...(shown.continuation && { continuation: shown.continuation }),
      tokens: shown.tokens,
    });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * The rest of the remembered suggestion when the request's prefix is the remembered prefix
   * plus a start of the suggestion, with the same text after the cursor.
   */
  lookup(key: string, model: string, prefix: string, suffix: string): { completion: string; continuation?: Continuation; tokens: number } | undefined {
    const shown = this.entries.get(key);
    if (!shown || shown.model !== model) return undefined;
    const typedLength = prefix.length - shown.prefixLength;
    if (typedLength < 0 || typedLength >= shown.completion.length) return undefined;
    const typed = prefix.slice(shown.prefixLength);
    if (!shown.completion.startsWith(typed)) return undefined;
    if (prefix.slice(shown.prefixLength - shown.prefixTail.length, shown.prefixLength) !== shown.prefixTail) return undefined;
    if (suffix.slice(0, WINDOW) !== shown.suffixHead) return undefined;
    this.entries.delete(key);
    this.entries.set(key, shown);
    const completion = shown.completion.slice(typedLength);
    // The provider's tokens are not kept; the rest's share of them is close enough.
    const tokens = Math.max(1, Math.round((shown.tokens * completion.length) / shown.completion.length));
    return { completion, ...(shown.continuation && { continuation: shown.continuation }), tokens };
  }
}
