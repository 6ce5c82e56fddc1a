// The builtin completion model: a project-wide token index (every file of the workspace) and
// a cache of the current file's live text, queried together by the decoder. Edits are cheap:
// updateFile only records the new text; it is lexed and indexed when a suggestion for another
// file needs the project (the current file's own live text is in the file cache anyway).

import { DEFAULT_SETTINGS, decode, traceSteps, type DecodeInput, type DecoderSettings, type TracedStep } from './decoder.ts';
import { END, type Source } from './evidence.ts';
import { FileContext } from './file-context.ts';
import { MAX_MATCH } from './occurrence-index.ts';
import { ProjectIndex } from './project-index.ts';
import type { Scope } from './scope.ts';
import { fitToSuffix } from './suffix.ts';
import { lex } from './tokenizer.ts';
import { Vocabulary } from './vocabulary.ts';

export interface BuiltinModelOptions {
  /** Decoder settings (tuned on a development split; see bench/completion/quality.ts). */
  settings?: Partial<DecoderSettings>;
  /** How many documents keep an incremental file cache. */
  openDocuments?: number;
}

export interface SuggestInput {
  prefix: string;
  suffix: string;
  filePath?: string;
  language?: string;
  maxTokens?: number;
  stop?: (text: string) => number | undefined;
  /** Overrides of the decoder settings for this call (benchmarks, experiments). */
  settings?: Partial<DecoderSettings>;
  /** Told of each token taken and its confidence (diagnostics). */
  onStep?: (piece: string, confidence: number) => void;
  /** The names the code index says are in scope (scope.ts); none without the index. */
  scope?: Scope;
}

export interface Suggestion {
  text: string;
  tokens: number;
  /**
   * The decoder would have read the names in scope (the word being typed has no other
   * evidence), and the input had none: a caller that can read them asks again with `scope`.
   */
  scopeWanted?: boolean;
}

const DEFAULT_MAX_TOKENS = 64;
/**
 * Characters of recorded files a suggestion indexes before it answers (about 10 ms): after a
 * checkout changed a thousand files, suggestions stay fast and the project catches up over the
 * next ones.
 */
const FLUSH_BUDGET = 256 * 1024;

export class BuiltinModel {
  readonly settings: DecoderSettings;
  private readonly vocabulary = new Vocabulary();
  private readonly project = new ProjectIndex(this.vocabulary);
  /** Texts given by updateFile and not indexed yet, oldest first. */
  private readonly pendingFiles = new Map<string, string>();
  /** File caches by document path, least recently used first. */
  private readonly documents = new Map<string, FileContext>();
  private readonly openDocuments: number;

  constructor(options: BuiltinModelOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    this.openDocuments = options.openDocuments ?? 8;
  }

  /** Adds or replaces a file's text in the project-wide model (indexed lazily). */
  updateFile(filePath: string, text: string): void {
    this.pendingFiles.set(filePath, text);
  }

  removeFile(filePath: string): void {
    this.pendingFiles.delete(filePath);
    this.project.remove(filePath);
    this.documents.delete(filePath);
  }

  suggest(input: SuggestInput): Suggestion {
    const { decodeInput, file } = this.prepare(input);
    const result = decode(decodeInput);
    const text = fitToSuffix(result.text, file.suffixLine);
    const suggestion: Suggestion = text === '' ? { text: '', tokens: 0 } : { text, tokens: result.tokens };
    if (result.scopeWanted && !input.scope) suggestion.scopeWanted = true;
    return suggestion;
  }

  /**
   * For calibration tooling: the evidence at each step of the true continuation `rest` of the
   * line at the cursor of `input` (whose unfinished token, if any, `rest` finishes).
   */
  trace(input: SuggestInput, rest: string): TracedStep[] {
    const { decodeInput, file } = this.prepare(input);
    const pieces = lex(file.pending + rest).tokens;
    const truth: number[] = [];
    for (const piece of pieces) {
      if (piece === '\n') break;
      truth.push(file.vocabulary.id(piece));
    }
    truth.push(END);
    // The pending token is part of the context, as decode() settles it.
    if (file.pending.trim() !== '') {
      const settled = truth.shift();
      if (settled === undefined || settled === END) return [];
      const context = Array.from(file.before.tokens.subarray(Math.max(0, file.before.length - MAX_MATCH - 1), file.before.length));
      context.push(settled);
      return traceSteps({ ...decodeInput, context, contextLength: context.length }, truth);
    }
    return traceSteps(decodeInput, truth);
  }

  private prepare(input: SuggestInput): { decodeInput: DecodeInput; file: FileContext } {
    this.flush(input.filePath, FLUSH_BUDGET);
    const file = this.fileContext(input.filePath);
    file.update(input.prefix, input.suffix);
    const settings = input.settings ? { ...this.settings, ...input.settings } : this.settings;
    const own = input.filePath === undefined ? undefined : this.project.segment(input.filePath);
    const sources: Source[] = [
      { index: file.before, weight: settings.fileWeight, inFile: true, distance: 'fromEnd', walk: settings.fileWalk },
      { index: file.after, weight: settings.fileWeight, inFile: true, distance: 'fromStart', walk: settings.fileWalk },
      // The project's copy of this file would echo the text around the cursor: left out.
      { index: this.project.index, weight: 1, inFile: false, skipFrom: own?.start, skipTo: own?.end, walk: settings.projectWalk },
    ];
    const decodeInput: DecodeInput = {
      context: file.before.tokens,
      contextLength: file.before.length,
      pending: file.pending,
      sources,
      vocabulary: file.vocabulary,
      maxTokens: input.maxTokens ?? DEFAULT_MAX_TOKENS,
      stop: input.stop,
      settings,
      onStep: input.onStep,
      suffixLine: file.suffixLine,
      keys: file.keys,
      scope: input.scope,
    };
    return { decodeInput, file };
  }

  /** Approximate bytes held and file/token counts (what updateFile recorded is indexed first). */
  stats(): { files: number; tokens: number; bytes: number } {
    this.indexPending();
    let bytes = this.project.bytes() + this.vocabulary.bytes;
    for (const document of this.documents.values()) bytes += document.before.bytes() + document.after.bytes();
    return { files: this.project.files, tokens: this.project.tokens, bytes };
  }

  /** Indexes every text updateFile recorded now (training does, so no suggestion waits). */
  indexPending(): void {
    this.flush(undefined, Infinity);
  }

  /**
   * Indexes the texts that updateFile recorded, about `budget` characters of them, but the
   * current document's: its live text is in the file cache, and re-indexing it on every
   * keystroke would be wasted.
   */
  private flush(current: string | undefined, budget: number): void {
    for (const [filePath, text] of this.pendingFiles) {
      if (budget <= 0) break;
      if (filePath === current) continue;
      this.project.set(filePath, text);
      this.pendingFiles.delete(filePath);
      budget -= text.length;
    }
  }

  private fileContext(filePath: string | undefined): FileContext {
    // A request without a path gets a fresh cache: its text may be any file at all.
    if (filePath === undefined) return new FileContext(this.vocabulary);
    let document = this.documents.get(filePath);
    if (document) this.documents.delete(filePath);
    else document = new FileContext(this.vocabulary);
    this.documents.set(filePath, document);
    while (this.documents.size > this.openDocuments) this.documents.delete(this.documents.keys().next().value!);
    return document;
  }
}
