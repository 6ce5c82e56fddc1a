// The token prompt of a gguf completion: the fill-in-the-middle layout, and the cuts that
// make it fit the context window. Pure functions over token ids, so tests can check the
// layout without a model.
//
// Layouts, with PRE/SUF/MID the model's infill tokens:
//   spm   [BOS] PRE SUF suffix MID prefix   → the model writes the middle, continuing `prefix`
//   psm   [BOS] PRE prefix SUF suffix MID   → the model writes the middle after MID
//   none  [BOS] prefix                      → a plain continuation (no infill tokens, or instruct)
//
// Why spm by default: the KV cache of a document's sequence is reused for the longest run of
// tokens the new prompt shares with what the sequence already holds, from the start. Between
// two keystrokes the text after the cursor (the suffix) is the same and the prefix only grows
// at its end, so with spm everything up to the last token or two of the prefix is shared and a
// keystroke evaluates a handful of tokens. With psm the suffix comes after the prefix, so each
// keystroke evaluates the whole suffix again (up to a quarter of the prompt at the default
// budgets). spm is the "suffix-prefix-middle" variant of Bavarian et al. 2022, the one
// StarCoder and Code Llama were trained with, where the prefix ends the prompt and the model
// continues it. Models trained on psm alone (Qwen2.5-Coder, DeepSeek-Coder) fill in better with
// psm; `resolveLayout` picks it for them, and the provider's `fimLayout` option overrides.
//
// psm keeps its own advantage: moving the cursor down a few lines only extends the prefix, so
// psm reuses the prefix where spm, whose suffix changed, evaluates nearly everything again.
// Typing is far more frequent than jumping around between completions.

export type FimLayout = 'spm' | 'psm';

export interface InfillTokens<T extends number = number> {
  prefix: T;
  suffix: T;
  middle: T;
}

export interface PromptParts<T extends number = number> {
  /** Beginning-of-sequence token, when the model wants one first. */
  bos?: T;
  /** Tokens of the text before the cursor. */
  prefix: readonly T[];
  /** Tokens of the text after the cursor (ignored without `infill`). */
  suffix: readonly T[];
  /** The model's fill-in-the-middle tokens; without them the prompt continues the prefix. */
  infill?: InfillTokens<T>;
  layout: FimLayout;
}

export interface Prompt<T extends number = number> {
  tokens: T[];
  /** Prefix tokens kept (the last ones) and suffix tokens kept (the first ones). */
  prefixTokens: number;
  suffixTokens: number;
  /** Tokens cut off the start of the prefix and off the end of the suffix to fit the budget. */
  prefixCut: number;
  suffixCut: number;
  /** 'none' when the prompt continues the prefix. */
  layout: FimLayout | 'none';
}

/** Share of the budget the suffix keeps at least when both sides must be cut. */
const SUFFIX_SHARE = 0.25;

/**
 * Builds the prompt in the given layout, cut to at most `budget` tokens: the prefix loses
 * tokens at its start (the ones farthest from the cursor), the suffix at its end. When both
 * are too long the suffix keeps a quarter of the room and the prefix the rest; when one side
 * is short the other gets what it leaves.
 */
export function buildPrompt<T extends number>(parts: PromptParts<T>, budget: number): Prompt<T> {
  const infill = parts.infill;
  const suffix = infill ? parts.suffix : [];
  const specials = (parts.bos === undefined ? 0 : 1) + (infill ? 3 : 0);
  const room = Math.max(1, budget - specials);
  let prefixKeep = parts.prefix.length;
  let suffixKeep = suffix.length;
  if (prefixKeep + suffixKeep > room) {
    suffixKeep = Math.min(suffix.length, Math.max(Math.floor(room * SUFFIX_SHARE), room - parts.prefix.length));
    prefixKeep = Math.min(parts.prefix.length, room - suffixKeep);
  }
  const prefix = parts.prefix.slice(parts.prefix.length - prefixKeep);
  const keptSuffix = suffix.slice(0, suffixKeep);
  const tokens: T[] = parts.bos === undefined ? [] : [parts.bos];
  if (!infill) tokens.push(...prefix);
  else if (parts.layout === 'spm') tokens.push(infill.prefix, infill.suffix, ...keptSuffix, infill.middle, ...prefix);
  else tokens.push(infill.prefix, ...prefix, infill.suffix, ...keptSuffix, infill.middle);
  return {
    tokens,
    prefixTokens: prefixKeep,
    suffixTokens: suffixKeep,
    prefixCut: parts.prefix.length - prefixKeep,
    suffixCut: suffix.length - suffixKeep,
    layout: infill ? parts.layout : 'none',
  };
}

/**
 * How many tokens a prompt may take in a window of `contextSize` when `maxTokens` are to be
 * generated: generation keeps up to half of the window, the prompt the rest. The caller then
 * generates at most `contextSize - prompt length` tokens, so the prompt and what follows it
 * never pass the window and llama.cpp never has to shift the context.
 */
export function promptBudget(contextSize: number, maxTokens: number): number {
  const reserve = Math.min(Math.max(1, maxTokens), Math.floor(contextSize / 2));
  return contextSize - reserve;
}

/**
 * The layout to use with a model: `psm` for model families trained on it alone, `spm`
 * otherwise. `architecture` is the GGUF `general.architecture`, `tokenizerPre` the
 * `tokenizer.ggml.pre` (DeepSeek-Coder runs on the llama architecture).
 */
export function resolveLayout(architecture: string | undefined, tokenizerPre: string | undefined): FimLayout {
  if (architecture === 'qwen2') return 'psm';
  if (tokenizerPre === 'deepseek-coder' || tokenizerPre === 'deepseek-llm') return 'psm';
  return 'spm';
}
