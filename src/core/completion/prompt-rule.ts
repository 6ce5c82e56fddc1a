// How the local API's `{prompt, context}` becomes a cursor. The spec gives a prompt ("the text
// to continue") and a context ("the file content"); the rule, in order:
// 0. `suffix` given (beyond the spec; not with a `context` nor an instruction) — the cursor is
//    between the prompt and the suffix: a client that knows where its cursor is says so, and a
//    prompt that occurs again further on cannot move it.
// 1. `mode: "instruct"` — the prompt is an instruction, the context the file it is about.
// 2. `mode: "continue"` or `auto` with the prompt found in the context — the cursor is right
//    after an occurrence of the prompt: the last one that ends a line (a user types at the end
//    of the line), else the last one. The prefix is the context up to there, the suffix the
//    rest (so a client may send the whole file and the line being typed).
// 3. `auto`, not found, a chat-capable model, and the prompt reads as prose (see below) — an
//    instruction.
// 4. Otherwise the prompt continues the context: prefix = context + prompt, no suffix.
import type { PromptMode } from '../../contracts/local-resources.ts';
import { LoomError } from '../errors.ts';

export interface Cursor {
  prefix: string;
  suffix: string;
  mode: 'fim' | 'instruct';
}

export function cursorFromPrompt(input: { prompt: string; context: string; suffix?: string; mode: PromptMode; chat: boolean }): Cursor {
  const { prompt, context } = input;
  if (input.suffix !== undefined) {
    if (input.mode === 'instruct' || context !== '') {
      throw new LoomError(
        'bad_request',
        input.mode === 'instruct' ? 'An instruction has no cursor: `suffix` goes with code to continue.' : '`suffix` and a `context` cannot both be given.',
        'Send the text before the cursor as `prompt` and the text after it as `suffix`, or the whole file as `context`.',
      );
    }
    return { prefix: prompt, suffix: input.suffix, mode: 'fim' };
  }
  if (input.mode === 'instruct') return { prefix: prompt, suffix: context, mode: 'instruct' };
  const end = prompt === '' ? -1 : cursorAfter(prompt, context);
  if (end !== -1) return { prefix: context.slice(0, end), suffix: context.slice(end), mode: 'fim' };
  if (input.mode === 'auto' && input.chat && readsAsInstruction(prompt)) return { prefix: prompt, suffix: context, mode: 'instruct' };
  return { prefix: context + prompt, suffix: '', mode: 'fim' };
}

/** End of the last occurrence of `prompt` that ends a line, else of the last one; -1 when none. */
function cursorAfter(prompt: string, context: string): number {
  let last = -1;
  for (let at = context.lastIndexOf(prompt); at !== -1; at = at === 0 ? -1 : context.lastIndexOf(prompt, at - 1)) {
    const end = at + prompt.length;
    if (last === -1) last = end;
    if (end === context.length || context[end] === '\n' || context[end] === '\r') return end;
  }
  return last;
}

const CODE_WORDS = new Set(
  'const let var function def class import from export return if else for while do switch case fn pub struct enum impl type interface package public private protected static async await use mod func go print println console'.split(
    ' ',
  ),
);

/**
 * Prose, not code: starts with a letter, has at least three words, its first word is not a
 * common keyword, it has none of the characters that only code uses (`{ } ; =` outside
 * backticks) and is mostly letters and spaces.
 */
export function readsAsInstruction(text: string): boolean {
  const trimmed = text.trim();
  if (!/^[A-Za-z]/.test(trimmed)) return false;
  const words = trimmed.split(/\s+/);
  if (words.length < 3 || CODE_WORDS.has(words[0]!.toLowerCase())) return false;
  const outsideCode = trimmed.replace(/`[^`]*`/g, '');
  if (/[{};=]/.test(outsideCode)) return false;
  const letters = outsideCode.match(/[\p{L}\s]/gu)?.length ?? 0;
  return letters / Math.max(1, outsideCode.length) >= 0.8;
}
