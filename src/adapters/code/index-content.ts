// What the index keeps of one file's content: its outline when its language is parsed, the
// chunks of the ranked search, its references packed. Runs where the parsing runs (a worker of
// the pool, or inline for small updates); everything it returns can be posted between threads.
import { buildChunks, type Chunk } from '../../core/code/chunks.ts';
import { hasLongLine } from '../../core/code/content.ts';
import { LIMITS, type Definition, type Import, type IndexedLanguage, type SkipReason } from '../../core/code/model.ts';
import { encodeReferences } from '../../core/code/references-codec.ts';
import { ParseTimeout, type Extractor } from './extract.ts';

/** A file's content as the index keeps it. */
export interface IndexedContent {
  language: IndexedLanguage;
  /** `parsed`: outline and chunks; `lexical`: chunks only; `skipped`: nothing (minified). */
  state: 'parsed' | 'lexical' | 'skipped';
  /** Why it is not parsed (parse-timeout, parse-failed, minified). */
  reason?: SkipReason;
  lines: number;
  definitions: Definition[];
  imports: Import[];
  /** The references, packed (references-codec.ts). */
  references: Uint8Array;
  referenceCount: number;
  truncated: boolean;
  syntaxErrors: boolean;
  chunks: Chunk[];
}

/**
 * Indexes one file's text as `language`: parsed with tree-sitter when it has a grammar, else
 * (or when the parse fails or runs out of time) as words only.
 *
 * @example await indexContent(new Extractor(), 'def f(): pass\n', 'python') // { state: 'parsed', definitions: [f], … }
 */
export async function indexContent(
  extractor: Extractor,
  text: string,
  language: IndexedLanguage,
  maxLineChars: number = LIMITS.maxLineChars,
): Promise<IndexedContent> {
  const empty = emptyContent(language, text.length === 0 ? 0 : countLines(text));
  if (hasLongLine(text, maxLineChars)) return { ...empty, state: 'skipped', reason: 'minified' };
  if (language === 'text') return { ...empty, chunks: buildChunks(text, []) };
  try {
    const outline = await extractor.extract(text, language);
    return {
      ...empty,
      state: 'parsed',
      definitions: outline.definitions,
      imports: outline.imports,
      references: encodeReferences(outline.references),
      referenceCount: outline.references.length,
      truncated: outline.truncated,
      syntaxErrors: outline.syntaxErrors,
      chunks: buildChunks(text, outline.definitions),
    };
  } catch (error) {
    return { ...empty, reason: error instanceof ParseTimeout ? 'parse-timeout' : 'parse-failed', chunks: buildChunks(text, []) };
  }
}

const EMPTY = new Uint8Array(0);

/**
 * What the index keeps of a file it found nothing in: no definitions, imports, references or
 * chunks (`state` lexical; a caller that skipped the file spreads in `state` and `reason`).
 *
 * @example
 *   const binary: IndexedContent = { ...emptyContent('typescript', 0), state: 'skipped', reason: 'binary' };
 */
export function emptyContent(language: IndexedLanguage, lines: number): IndexedContent {
  return {
    language,
    state: 'lexical',
    lines,
    definitions: [],
    imports: [],
    references: EMPTY,
    referenceCount: 0,
    truncated: false,
    syntaxErrors: false,
    chunks: [],
  };
}

function countLines(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}
