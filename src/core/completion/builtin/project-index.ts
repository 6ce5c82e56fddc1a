// The project-wide part of the model: every known file's tokens in one OccurrenceIndex, each
// file one segment that starts with a BOUNDARY token. Replacing a file kills its old segment
// and appends the new one (O(file)); the dead tokens are compacted away once they outnumber
// the live ones (a rebuild of the whole index, so rare: a file is re-indexed when a suggestion
// for another file is asked, not on every keystroke).

import { OccurrenceIndex } from './occurrence-index.ts';
import { BOUNDARY, type Vocabulary } from './vocabulary.ts';
import { lex } from './tokenizer.ts';

interface Segment {
  start: number;
  end: number;
}

export class ProjectIndex {
  index: OccurrenceIndex;
  private readonly segments = new Map<string, Segment>();
  private live = 0;
  private dead = 0;

  private readonly keyOf: (id: number) => number;

  constructor(private readonly vocabulary: Vocabulary) {
    this.keyOf = (id) => vocabulary.key(id);
    this.index = new OccurrenceIndex(1 << 12, this.keyOf);
  }

  get files(): number {
    return this.segments.size;
  }

  get tokens(): number {
    return this.live;
  }

  /** The stream range of a file, if the project holds it. */
  segment(filePath: string): Segment | undefined {
    return this.segments.get(filePath);
  }

  set(filePath: string, text: string): void {
    this.remove(filePath);
    const { tokens } = lex(text);
    const ids = new Int32Array(tokens.length + 1);
    ids[0] = BOUNDARY;
    for (let i = 0; i < tokens.length; i++) ids[i + 1] = this.vocabulary.intern(tokens[i]!);
    const start = this.index.length;
    this.index.append(ids);
    this.segments.set(filePath, { start, end: this.index.length });
    this.live += ids.length;
  }

  remove(filePath: string): void {
    const old = this.segments.get(filePath);
    if (!old) return;
    this.segments.delete(filePath);
    this.index.kill(old.start, old.end);
    this.live -= old.end - old.start;
    this.dead += old.end - old.start;
    if (this.dead > 65536 && this.dead > this.live) this.compact();
  }

  bytes(): number {
    return this.index.bytes();
  }

  /** Rebuilds the stream from the live segments, in their order. */
  private compact(): void {
    const old = this.index;
    const fresh = new OccurrenceIndex(Math.max(1 << 16, this.live + 1024), this.keyOf);
    for (const [filePath, segment] of [...this.segments].sort((a, b) => a[1].start - b[1].start)) {
      const start = fresh.length;
      fresh.append(old.tokens.subarray(segment.start, segment.end));
      this.segments.set(filePath, { start, end: fresh.length });
    }
    this.index = fresh;
    this.dead = 0;
  }
}
