// The agent loop: the model's turn, then the tools it called and the edit blocks it wrote,
// their results back to it, again, until it answers without asking for anything (done) or
// something ends the task: a budget (steps, tokens, wall time), a loop, answers it cannot
// correct, the model failing, a cancel. Every end has a reason.
//
// The model may act in two ways, both always read: tool calls (native, or written as
// <tool_call> text by a server without tool calling) and search/replace blocks in its answer's
// text (a model or server without tools edits that way). What cannot be acted on (malformed
// arguments, an unknown tool, a broken block) is answered with a correction, and a model that
// gives nothing usable MAX_UNUSABLE_TURNS turns in a row ends the task.
import type { ChatMessage, ChatProvider, ChatResult, ParsedToolCall } from '../../completion/chat.ts';
import { readTextToolCalls } from '../../completion/tool-text.ts';
import type { Clock } from '../../clock.ts';
import { LoomError } from '../../errors.ts';
import { parseEditBlocks, type EditBlock } from '../edits/index.ts';
import { applyEditBlock, type Toolbox, type ToolContext, type ToolOutcome } from '../tools/index.ts';
import type { AgentBudgets, AgentStep, EndReason } from '../types.ts';
import { compactConversation } from './conversation.ts';
import { LoopDetector } from './loop-detector.ts';

/** Most tokens one turn may generate (less when the token budget has less left). */
export const TURN_MAX_TOKENS = 4096;
/** How many characters make a token, about, in prompts of code and English: for the turn not counted yet. */
const CHARS_PER_TOKEN = 4;
/** Turns in a row with nothing the loop could act on before the task ends (`unusable_answers`). */
export const MAX_UNUSABLE_TURNS = 3;

/** Why a task is stopped from outside: its signal's abort reason. */
export class TaskStop extends Error {
  override name = 'TaskStop';
  constructor(readonly reason: 'cancelled' | 'interrupted' | 'timeout') {
    super(`the task was stopped: ${reason}`);
  }
}

/** A step log entry as the loop reports it (the caller numbers and dates it). */
export type StepInput = Omit<AgentStep, 'index' | 'at'>;

export interface LoopOptions {
  provider: ChatProvider;
  /** Names the conversation for providers that keep its state between turns (gguf's KV cache). */
  conversation: string;
  toolbox: Toolbox;
  /** The tools' context, but for the signal (the loop passes its own). */
  context: Omit<ToolContext, 'signal'>;
  /** The system prompt and the first user message. */
  messages: ChatMessage[];
  budgets: AgentBudgets;
  clock: Clock;
  /** When the task started, on `clock`. */
  startedAt: number;
  /** Aborted with a TaskStop to cancel or interrupt the task. */
  signal: AbortSignal;
  /** Records a step (log, events, store); awaited. */
  record(step: StepInput): Promise<void>;
  /** Hears of each model turn (the manager measures the model's speed). */
  onTurn?(result: ChatResult): void;
}

export interface LoopEnd {
  reason: EndReason;
  /** The model's last words. */
  summary?: string;
  /** For `model_error`: what failed. */
  error?: string;
}

/** Runs a task's loop to its end. Throws only on failures of Loom itself (a store that cannot record). */
export async function runLoop(options: LoopOptions): Promise<LoopEnd> {
  const { budgets, clock, startedAt } = options;
  const deadline = startedAt + budgets.timeoutSeconds * 1000;
  // The wall-time budget also aborts a model call or a command under way.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new TaskStop('timeout')), Math.max(0, deadline - clock.now()));
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const messages = [...options.messages];
  const loops = new LoopDetector();
  const context: ToolContext = { ...options.context, signal };
  let steps = 0;
  let tokens = 0;
  let unusable = 0;
  let summary: string | undefined;
  /** The last turn's prompt, in characters and in the tokens the model counted. */
  let lastPrompt: { chars: number; tokens: number } | undefined;
  const end = (reason: EndReason, extra: Omit<LoopEnd, 'reason'> = {}): LoopEnd => ({ reason, ...(summary !== undefined ? { summary } : {}), ...extra });
  const stopped = (): LoopEnd | undefined => (signal.aborted ? end(stopReason(signal)) : undefined);
  try {
    for (;;) {
      compactConversation(messages);
      const tools = options.toolbox.declarations();
      const promptChars = messages.reduce((sum, message) => sum + message.content.length, JSON.stringify(tools).length);
      // The budget counts the prompt too: what the turn may generate is what its prompt leaves.
      const promptTokens = lastPrompt ? lastPrompt.tokens + (promptChars - lastPrompt.chars) / CHARS_PER_TOKEN : promptChars / CHARS_PER_TOKEN;
      const room = Math.floor(budgets.maxTokens - tokens - promptTokens);
      const stop =
        stopped() ?? (steps >= budgets.maxSteps ? end('max_steps') : room < 1 ? end('max_tokens') : clock.now() >= deadline ? end('timeout') : undefined);
      if (stop) return stop;
      const started = clock.now();
      let result: ChatResult;
      try {
        result = await options.provider.chat({
          messages,
          tools,
          maxTokens: Math.min(TURN_MAX_TOKENS, room),
          conversation: options.conversation,
          signal,
        });
      } catch (error) {
        if (signal.aborted) return end(stopReason(signal));
        if (error instanceof LoomError) return end('model_error', { error: error.hint ? `${error.message} ${error.hint}` : error.message });
        throw error;
      }
      steps++;
      tokens += result.usage.promptTokens + result.usage.completionTokens;
      lastPrompt = { chars: promptChars, tokens: result.usage.promptTokens };
      options.onTurn?.(result);
      const turn = readTurn(result);
      if (turn.text.trim() !== '') summary = turn.text.trim();
      await options.record({
        kind: 'model',
        turn: steps,
        text: result.text,
        tokens: { prompt: result.usage.promptTokens, completion: result.usage.completionTokens },
        durationMs: Math.max(0, Math.round(clock.now() - started)),
      });
      messages.push({
        role: 'assistant',
        content: turn.text,
        ...(turn.calls.length ? { toolCalls: turn.calls.map(({ id, name, argumentsText }) => ({ id, name, argumentsText })) } : {}),
      });
      if (turn.calls.length === 0 && turn.blocks.length === 0 && turn.problems.length === 0) {
        if (result.finishReason !== 'length' && turn.text.trim() !== '') return end('done');
        const told =
          result.finishReason === 'length'
            ? 'Your answer was cut off at the token limit. Write a shorter answer: one step at a time.'
            : 'Your answer was empty. Call a tool, or answer with a summary to end the task.';
        if (++unusable >= MAX_UNUSABLE_TURNS) return end('unusable_answers');
        messages.push({ role: 'user', content: told });
        await options.record({ kind: 'notice', turn: steps, text: told });
        continue;
      }

      // The calls, in order, then the blocks; each result goes back to the model.
      const actions: { name: string; arguments: string; result: string }[] = [];
      let usable = turn.blocks.length;
      for (const call of turn.calls) {
        if (signal.aborted) return end(stopReason(signal));
        const known = options.toolbox.get(call.name);
        let outcome: ToolOutcome;
        if (call.error !== undefined)
          outcome = {
            ok: false,
            text: `Your call of ${call.name || 'a tool'} could not be read: ${call.error} Send it again with its arguments as one JSON object.`,
          };
        else if (!known) outcome = { ok: false, text: `There is no tool ${JSON.stringify(call.name)}. The tools are: ${options.toolbox.names().join(', ')}.` };
        else {
          usable++;
          outcome = await known.run(call.arguments, context);
        }
        messages.push({ role: 'tool', toolCallId: call.id, content: outcome.text });
        await options.record({
          kind: 'tool',
          turn: steps,
          tool: call.name,
          arguments: call.argumentsText,
          ok: outcome.ok,
          text: outcome.text,
          ...(outcome.diff ? { diff: outcome.diff } : {}),
        });
        actions.push({ name: call.name, arguments: call.argumentsText, result: outcome.text });
      }
      // What the blocks did is logged as tool steps; what the runtime adds of its own, as notices.
      const results: string[] = [];
      const notices: string[] = turn.problems.map((problem) => `Not applied: ${problem}`);
      for (const [index, block] of turn.blocks.entries()) {
        if (signal.aborted) return end(stopReason(signal));
        const outcome = await applyEditBlock(context.files, block, index + 1);
        const argumentsText = JSON.stringify({ path: block.path, search: block.search, replace: block.replace });
        await options.record({
          kind: 'tool',
          turn: steps,
          tool: 'edit_file',
          arguments: argumentsText,
          ok: outcome.ok,
          text: outcome.text,
          ...(outcome.diff ? { diff: outcome.diff } : {}),
        });
        actions.push({ name: 'edit_file', arguments: argumentsText, result: outcome.text });
        results.push(outcome.text);
      }
      if (usable === 0) {
        if (++unusable >= MAX_UNUSABLE_TURNS) return end('unusable_answers');
      } else unusable = 0;
      const verdict = loops.record(actions);
      if (verdict === 'stop') return end('loop');
      if (verdict === 'redirect') {
        notices.push(
          'You have now made the same call with the same result several times: doing it again will not change anything. Try a different approach, or, if the task cannot be done, finish with a summary saying why.',
        );
      }
      if (results.length || notices.length) {
        messages.push({ role: 'user', content: [...(results.length ? ['Your edit blocks:', ...results] : []), ...notices].join('\n') });
        if (notices.length) await options.record({ kind: 'notice', turn: steps, text: notices.join('\n') });
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

interface Turn {
  /** The answer's text without its <tool_call> blocks. */
  text: string;
  calls: ParsedToolCall[];
  blocks: EditBlock[];
  /** The messages of blocks that could not be read. */
  problems: string[];
}

/** What the model asked for: native calls, calls written as text, and edit blocks in the text. */
function readTurn(result: ChatResult): Turn {
  let text = result.text;
  let calls = result.toolCalls;
  if (calls.length === 0 && text.includes('<tool_call>')) ({ text, calls } = readTextToolCalls(text));
  const { blocks, problems } = parseEditBlocks(text, { truncated: result.finishReason === 'length' });
  return { text, calls, blocks, problems: problems.map((problem) => problem.message) };
}

function stopReason(signal: AbortSignal): EndReason {
  return signal.reason instanceof TaskStop ? signal.reason.reason : 'cancelled';
}
