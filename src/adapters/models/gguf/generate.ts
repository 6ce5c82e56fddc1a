// One completion on one sequence: bring the sequence's KV cache to the prompt (erase what
// differs, evaluate the rest), then decode greedily token by token.
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { LoomError } from '../../../core/errors.ts';
import type { ProviderResult } from '../../../core/completion/provider.ts';
import { planReuse } from './reuse.ts';

/** Counters of a provider's work, shared by its requests. */
export interface GenerationCounters {
  requests: number;
  promptTokens: number;
  /** Prompt tokens the model evaluated; the others were already in the sequence's KV cache. */
  promptTokensEvaluated: number;
  promptTokensReused: number;
  /** Of the reused ones, those moved back past an erased run (a slid prefix window). */
  promptTokensShifted: number;
  generatedTokens: number;
}

export interface GenerationRequest {
  prompt: Token[];
  /** Most tokens to generate, at least 1 (already capped to the room left in the window). */
  maxTokens: number;
  stop: (text: string) => number | undefined;
  signal: AbortSignal;
  /** The last tokens before the cursor, so the first generated token is detokenized with its leading space right. */
  precedingTokens: Token[];
  allowShift: boolean;
  batchSize: number;
}

/** Wraps what the request's `stop` callback threw, to tell it from llama.cpp's failures. */
class CallerError {
  constructor(readonly cause: unknown) {}
}

/** Decoding stopped at a character U+FFFD stands for an unfinished multi-byte character. */
const UNFINISHED = /\uFFFD+$/;

export async function generate(
  model: LlamaModel,
  sequence: LlamaContextSequence,
  request: GenerationRequest,
  counters: GenerationCounters,
): Promise<ProviderResult> {
  const { prompt, signal } = request;
  signal.throwIfAborted();
  counters.requests++;
  try {
    const keep = await alignSequence(sequence, prompt, request.allowShift, counters);
    counters.promptTokens += prompt.length;

    // The prompt goes in batch-sized chunks, so an abort is seen between them; the last chunk
    // is the one whose logits give the first generated token.
    let index = keep;
    while (prompt.length - index > request.batchSize) {
      const chunk = prompt.slice(index, index + request.batchSize);
      await sequence.evaluateWithoutGeneratingNewTokens(chunk);
      counters.promptTokensEvaluated += chunk.length;
      index += chunk.length;
      signal.throwIfAborted();
    }
    const last = prompt.slice(index);
    counters.promptTokensEvaluated += last.length;

    const generated: Token[] = [];
    const decode = detokenizer(model, request.precedingTokens);
    let text = '';
    let kept: number | undefined;
    // temperature 0: greedy. The iterator ends by itself on an end-of-generation token (EOS, EOT).
    for await (const token of sequence.evaluate(last, { temperature: 0 })) {
      // Another control token (an infill marker, a file separator) ends the middle too.
      if (isControl(model, token)) break;
      generated.push(token);
      counters.generatedTokens++;
      text = decode(generated);
      if (!UNFINISHED.test(text)) {
        try {
          kept = request.stop(text);
        } catch (error) {
          throw new CallerError(error);
        }
        if (kept !== undefined) break;
      }
      if (generated.length >= request.maxTokens) break;
      signal.throwIfAborted();
    }
    signal.throwIfAborted();
    return { text: kept === undefined ? text.replace(UNFINISHED, '') : text.slice(0, kept), tokens: generated.length };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof LoomError) throw error;
    // The engine's own callback failed: its error, as it was; the sequence is fine.
    if (error instanceof CallerError) throw error.cause;
    // The sequence's state is unknown after a native failure: start it afresh next time.
    await sequence
      .clearHistory()
      .catch(() => sequence.dispose())
      .catch(() => undefined);
    throw new LoomError('model_failed', `The GGUF model failed while generating: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Text of the generated tokens as they read after the tokens before the cursor (a tokenizer
 * may drop the leading space of a text's first token, or glue bytes to the ones before): what
 * node-llama-cpp's `detokenize(tokens, false, lastTokens)` gives, with the preceding tokens'
 * own text computed once per request instead of once per token.
 */
function detokenizer(model: LlamaModel, preceding: Token[]): (generated: Token[]) => string {
  const head = preceding.length === 0 ? '' : model.detokenize(preceding, false);
  if (head === '') return (generated) => model.detokenize(generated, false);
  return (generated) => {
    const text = model.detokenize([...preceding, ...generated], false);
    return text.startsWith(head) ? text.slice(head.length) : model.detokenize(generated, false);
  };
}

const controlTokens = new WeakMap<LlamaModel, Map<Token, boolean>>();

function isControl(model: LlamaModel, token: Token): boolean {
  let known = controlTokens.get(model);
  if (!known) controlTokens.set(model, (known = new Map()));
  let control = known.get(token);
  if (control === undefined) known.set(token, (control = model.getTokenAttributes(token).control));
  return control;
}

/**
 * Erases from the sequence what the prompt does not share with it (see reuse.ts); returns how
 * many prompt tokens it now holds.
 */
async function alignSequence(sequence: LlamaContextSequence, prompt: Token[], allowShift: boolean, counters: GenerationCounters): Promise<number> {
  const plan = planReuse(sequence.contextTokens, prompt, { allowShift });
  if (plan.erase.length > 0) await sequence.eraseContextTokenRanges(plan.erase);
  let keep = plan.keep;
  // node-llama-cpp re-evaluates by itself when llama.cpp refuses to remove cells (a cache that
  // cannot shift): trust what the sequence holds, not the plan.
  const held = sequence.nextTokenIndex;
  const same = Math.min(sequence.compareContextTokens(prompt).firstDifferentIndex, prompt.length - 1);
  if (held !== keep || same < keep) {
    keep = Math.min(same, held);
    if (keep < held) await sequence.eraseContextTokenRanges([{ start: keep, end: held }]);
  } else if (plan.shifted > 0) counters.promptTokensShifted += plan.shifted;
  counters.promptTokensReused += keep;
  return keep;
}
