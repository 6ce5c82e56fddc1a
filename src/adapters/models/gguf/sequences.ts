// A small pool of context sequences, one per document: each sequence keeps the KV cache of the
// last prompt of its document, so the next keystroke's prompt evaluates only what changed.
// Requests on one sequence run one at a time, in arrival order; sequences of different
// documents run side by side (node-llama-cpp batches their tokens into the same decode).
// When every sequence is taken, the least recently used one (preferably an idle one) passes to
// the new document: its cache is simply what the next prompt shares nothing with.

/** What the pool needs of a sequence (node-llama-cpp's LlamaContextSequence). */
export interface PooledSequence {
  readonly disposed: boolean;
  dispose(): Promise<void> | void;
}

interface Slot<S extends PooledSequence> {
  sequence: S;
  /** The document it holds; '' for requests without a path. */
  key: string;
  lastUsed: number;
  /** Settles when the last queued job has. */
  tail: Promise<void>;
  /** Jobs queued or running. */
  pending: number;
}

export class SequencePool<S extends PooledSequence> {
  private readonly slots: Slot<S>[] = [];
  private clock = 0;

  constructor(
    private readonly capacity: number,
    private readonly create: () => S,
  ) {}

  get size(): number {
    return this.slots.length;
  }

  /** Runs `job` on the document's sequence once the jobs queued on it before have settled. */
  run<T>(key: string, job: (sequence: S) => Promise<T>): Promise<T> {
    const slot = this.slotFor(key);
    slot.lastUsed = ++this.clock;
    slot.pending++;
    const result = slot.tail.then(() => {
      // A sequence that failed in the native layer is replaced before the next job.
      if (slot.sequence.disposed) slot.sequence = this.create();
      return job(slot.sequence);
    });
    slot.tail = result.then(
      () => undefined,
      () => undefined,
    );
    void slot.tail.then(() => slot.pending--);
    return result;
  }

  /** Waits for every queued job, then disposes the sequences. */
  async dispose(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.tail));
    await Promise.all(slots.map((slot) => slot.sequence.dispose()));
  }

  private slotFor(key: string): Slot<S> {
    const own = this.slots.find((slot) => slot.key === key);
    if (own) return own;
    if (this.slots.length < this.capacity) {
      const slot: Slot<S> = { sequence: this.create(), key, lastUsed: 0, tail: Promise.resolve(), pending: 0 };
      this.slots.push(slot);
      return slot;
    }
    const byAge = [...this.slots].sort((a, b) => a.lastUsed - b.lastUsed);
    const slot = byAge.find((candidate) => candidate.pending === 0) ?? byAge[0]!;
    slot.key = key;
    return slot;
  }
}
