// BM25F over documents made of weighted fields (a file's path, its symbols, its text): the
// lexical relevance locate starts from, and, with one field, the plain BM25 anchor the
// localization benchmark compares locate with.
//
// Each field's term frequency is normalised by that field's length against its average, the
// fields are summed with their weights, and the sum saturates once per term (Robertson and
// Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, section 3.7). With
// one field of weight 1 this is BM25 with the usual inverse document frequency
// ln(1 + (N - df + 0.5) / (df + 0.5)).

export interface Bm25Options<F extends string> {
  /** Each field's weight; a field not listed is not indexed. */
  weights: Record<F, number>;
  /** Term frequency saturation (1.2). */
  k1?: number;
  /** Length normalisation, 0 (none) to 1 (full), one value for every field or one per field (0.75). */
  b?: number | Partial<Record<F, number>>;
}

export interface Bm25Hit {
  /** The document's position in the order documents were added. */
  doc: number;
  score: number;
  /** The query's terms the document holds, most contributing first. */
  terms: string[];
}

interface FieldPostings {
  /** term → documents holding it, with the term's count there (parallel arrays). */
  postings: Map<string, { docs: number[]; counts: number[] }>;
  lengths: number[];
  totalLength: number;
}

/**
 * An in-memory BM25F index: add documents as lists of terms per field, then score queries.
 *
 * @example
 * const index = new Bm25Index({ weights: { path: 2, text: 1 } });
 * index.add({ path: splitTerms('src/router.ts'), text: splitTerms(source) });
 * index.search(splitTerms('fix the router'), 10); // [{ doc: 0, score: 1.9, terms: ['router'] }]
 */
export class Bm25Index<F extends string> {
  private readonly fields: F[];
  private readonly weights: Record<F, number>;
  private readonly k1: number;
  private readonly b: Record<F, number>;
  private readonly index = new Map<F, FieldPostings>();
  private count = 0;

  constructor(options: Bm25Options<F>) {
    this.fields = (Object.keys(options.weights) as F[]).filter((field) => options.weights[field] > 0);
    this.weights = options.weights;
    this.k1 = options.k1 ?? 1.2;
    const b = options.b ?? 0.75;
    this.b = Object.fromEntries(this.fields.map((field) => [field, typeof b === 'number' ? b : (b[field] ?? 0.75)])) as Record<F, number>;
    for (const field of this.fields) this.index.set(field, { postings: new Map(), lengths: [], totalLength: 0 });
  }

  /** How many documents were added. */
  get size(): number {
    return this.count;
  }

  /** Adds a document (its terms per field, repeats counted); returns its number. */
  add(document: Partial<Record<F, readonly string[]>>): number {
    const doc = this.count++;
    for (const field of this.fields) {
      const state = this.index.get(field)!;
      const terms = document[field] ?? [];
      state.lengths.push(terms.length);
      state.totalLength += terms.length;
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, count] of counts) {
        let posting = state.postings.get(term);
        if (!posting) state.postings.set(term, (posting = { docs: [], counts: [] }));
        posting.docs.push(doc);
        posting.counts.push(count);
      }
    }
    return doc;
  }

  /** How many documents hold `term` in any field. */
  documentFrequency(term: string): number {
    const docs = new Set<number>();
    for (const field of this.fields) for (const doc of this.index.get(field)!.postings.get(term)?.docs ?? []) docs.add(doc);
    return docs.size;
  }

  /** The inverse document frequency of `term` (0 when no document holds it). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return df === 0 ? 0 : Math.log(1 + (this.count - df + 0.5) / (df + 0.5));
  }

  /**
   * Every document holding at least one of the query's terms, best first (ties: the earlier
   * document). Repeated query terms count once.
   */
  search(query: readonly string[], limit = Infinity): Bm25Hit[] {
    const unique = [...new Set(query)];
    const weighted = new Map<number, Map<string, number>>();
    for (const term of unique) {
      for (const field of this.fields) {
        const state = this.index.get(field)!;
        const posting = state.postings.get(term);
        if (!posting) continue;
        const average = state.totalLength / Math.max(1, this.count) || 1;
        const b = this.b[field];
        for (let i = 0; i < posting.docs.length; i++) {
          const doc = posting.docs[i]!;
          const normalised = (this.weights[field] * posting.counts[i]!) / (1 - b + (b * state.lengths[doc]!) / average);
          let terms = weighted.get(doc);
          if (!terms) weighted.set(doc, (terms = new Map()));
          terms.set(term, (terms.get(term) ?? 0) + normalised);
        }
      }
    }
    const idf = new Map(unique.map((term) => [term, this.idf(term)]));
    const hits: Bm25Hit[] = [];
    for (const [doc, terms] of weighted) {
      let score = 0;
      const parts: [string, number][] = [];
      for (const [term, tf] of terms) {
        const part = (idf.get(term)! * tf) / (this.k1 + tf);
        score += part;
        parts.push([term, part]);
      }
      parts.sort((a, b) => b[1] - a[1]);
      hits.push({ doc, score, terms: parts.map(([term]) => term) });
    }
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits.slice(0, limit);
  }
}
