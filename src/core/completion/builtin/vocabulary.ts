// Token texts interned to small integers, so that streams are Int32Arrays and contexts hash
// without touching strings.

/** Id 0: the boundary between files (and the start of a file's context). */
export const BOUNDARY = 0;
/** Id 1: a line break; a suggestion ends there. */
export const LINE_BREAK = 1;
/** Ids at or above this are local to one request (tokens the project never saw). */
export const LOCAL_BASE = 1 << 30;

/**
 * The class a string literal matches as in contexts, or undefined for any other token: a
 * string the project never saw must not break every context it is part of (`name: 'push', `
 * still matches `name: 'billing', `), while the suggestions still give each literal as it is.
 * The leading whitespace is kept. (Numbers and template literals stay themselves: classing
 * them did not help on the development split.)
 */
export function literalClass(text: string): string | undefined {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  const c = text.charCodeAt(i);
  return c === 39 || c === 34 ? text.slice(0, i) + '\u0002"' : undefined;
}

export class Vocabulary {
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [];
  /** Per id: the id it matches as in contexts (its literal class, or itself). */
  private readonly keys: number[] = [];
  /** Approximate bytes of the interned strings (for stats). */
  bytes = 0;

  constructor() {
    this.intern('\u0000');
    this.intern('\n');
  }

  get size(): number {
    return this.texts.length;
  }

  /** The id of `text`, interning it when new. */
  intern(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      // A slice of a big file text would keep the whole file alive: keep a flat copy.
      const own = text.length > 0 ? flatCopy(text) : text;
      id = this.texts.length;
      this.ids.set(own, id);
      this.texts.push(own);
      this.keys.push(id);
      this.bytes += 2 * own.length + 48;
      const cls = literalClass(own);
      if (cls !== undefined) this.keys[id] = this.intern(cls);
    }
    return id;
  }

  /** The id that `id` matches as in contexts (see literalClass). */
  key(id: number): number {
    return id >= 0 ? (this.keys[id] ?? id) : id;
  }

  /** The id of `text`, or -1 when the project never saw it. */
  lookup(text: string): number {
    return this.ids.get(text) ?? -1;
  }

  text(id: number): string {
    return this.texts[id] ?? '';
  }
}

function flatCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Ids for one request: project ids where the project knows the token, fresh local ids
 * (never matching a project token) for the rest. Local tokens are forgotten with the request.
 */
export class LocalVocabulary {
  private readonly local = new Map<string, number>();
  private readonly localTexts: string[] = [];
  private readonly localKeys: number[] = [];

  private checkedSize: number;

  constructor(readonly project: Vocabulary) {
    this.checkedSize = project.size;
  }

  /**
   * Whether the project has since learned a token this request made local: ids built before
   * would no longer match the project's for the same text.
   */
  stale(): boolean {
    if (this.project.size === this.checkedSize) return false;
    this.checkedSize = this.project.size;
    return this.localTexts.some((text) => this.project.lookup(text) >= 0);
  }

  id(text: string): number {
    const known = this.project.lookup(text);
    if (known >= 0) return known;
    let id = this.local.get(text);
    if (id === undefined) {
      id = LOCAL_BASE + this.localTexts.length;
      this.local.set(text, id);
      this.localTexts.push(text);
      const cls = literalClass(text);
      this.localKeys.push(cls === undefined ? id : this.project.intern(cls));
    }
    return id;
  }

  /** The id that `id` matches as in contexts (see literalClass). */
  key(id: number): number {
    return id >= LOCAL_BASE ? (this.localKeys[id - LOCAL_BASE] ?? id) : this.project.key(id);
  }

  /** The id of `text` if this request or the project has seen it, else -1. */
  lookup(text: string): number {
    const known = this.project.lookup(text);
    if (known >= 0) return known;
    return this.local.get(text) ?? -1;
  }

  text(id: number): string {
    return id >= LOCAL_BASE ? (this.localTexts[id - LOCAL_BASE] ?? '') : this.project.text(id);
  }
}
