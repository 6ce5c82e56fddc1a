// KV cache reuse: given the tokens a sequence holds (its KV cache) and the next prompt, which
// tokens to erase and which to evaluate. Pure, so it is tested without a model.
//
// The common case is a keystroke: the new prompt shares a long run of tokens from the start
// with the held ones and differs near the end (the last token or two of the prefix, and with
// psm the suffix after it); the held tail is erased and the new tail evaluated.
//
// The second case is a window that slid: once a document passes the prefix budget, the engine
// drops whole lines from the start of the prefix as the user types (and the provider cuts
// tokens off its start when the prompt passes the context). The new prompt is then the held
// one minus a run of tokens in the middle (right after the layout's leading tokens) plus a new
// tail. llama.cpp can remove that run from the cache and shift the cells after it back (RoPE
// positions are shifted, not recomputed), so only the tail is evaluated instead of the whole
// prompt. This needs a model whose cache can be shifted (not recurrent), which the caller says.
//
// It is an approximation, the one llama.cpp's server makes with `--cache-reuse`: the kept
// tokens' keys and values were computed while the erased run was in view, and keep a trace of
// it in the upper layers. For a few lines dropped at the far end of the prefix the effect is
// small, and it saves evaluating thousands of tokens on the keystroke that slides the window.
// So a shift is only made when it keeps a long run (MIN_SHIFTED) that is most of the new
// prompt past the shared start: a slid window, never a chance match with another document.
//
// The prefix is tokenized as if it followed a newline (node-llama-cpp's `trimLeadingSpace`),
// so a line at the start of the prefix has the same tokens it had in the middle of it and the
// slid prompt really is a deletion of the held one.

export interface TokenRange {
  /** Inclusive. */
  start: number;
  /** Exclusive. */
  end: number;
}

export interface ReusePlan {
  /** Ranges of the held tokens to erase, in held positions, ascending and disjoint. */
  erase: TokenRange[];
  /** After the erase, the sequence holds `prompt.slice(0, keep)`; the rest is evaluated. */
  keep: number;
  /** Of `keep`, tokens that were moved back by the erase of a run before them (0 when none). */
  shifted: number;
}

/** Tokens of the new prompt compared when looking for where the held tokens continue. */
const PROBE = 8;
/** Fewest tokens a shift must keep; it must also keep at least half of what follows the shared start. */
const MIN_SHIFTED = 64;
/** Most places looked at, so repetitive text (runs of the same token) stays linear. */
const MAX_CANDIDATES = 64;

export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

/**
 * Plans the move from `held` to `prompt`. At least the last prompt token is always left to
 * evaluate: generation needs the logits after it.
 */
export function planReuse(held: readonly number[], prompt: readonly number[], options: { allowShift: boolean }): ReusePlan {
  const limit = Math.max(0, prompt.length - 1);
  const common = Math.min(commonPrefixLength(held, prompt), limit);
  const tailFrom = (keep: number): TokenRange[] => (keep < held.length ? [{ start: keep, end: held.length }] : []);

  // A run erased at position 0 would leave llama.cpp without the cache's first cell, which it
  // answers by evaluating everything again; shift only after a shared start.
  if (!options.allowShift || common === 0 || limit - common < PROBE) return { erase: tailFrom(common), keep: common, shifted: 0 };

  let best = { skip: 0, length: 0 };
  let candidates = 0;
  for (let skip = 1; common + skip + PROBE <= held.length && candidates < MAX_CANDIDATES; skip++) {
    const from = common + skip;
    if (held[from] !== prompt[common]) continue;
    let matched = 1;
    while (matched < PROBE && held[from + matched] === prompt[common + matched]) matched++;
    if (matched < PROBE) continue;
    candidates++;
    while (from + matched < held.length && common + matched < limit && held[from + matched] === prompt[common + matched]) matched++;
    if (matched > best.length) best = { skip, length: matched };
    if (common + matched >= limit) break; // cannot do better than sharing everything
  }
  if (best.length < MIN_SHIFTED || best.length * 2 < limit - common) return { erase: tailFrom(common), keep: common, shifted: 0 };

  const keep = common + best.length;
  const erase: TokenRange[] = [{ start: common, end: common + best.skip }];
  const restFrom = common + best.skip + best.length;
  if (restFrom < held.length) erase.push({ start: restFrom, end: held.length });
  return { erase, keep, shifted: best.length };
}
