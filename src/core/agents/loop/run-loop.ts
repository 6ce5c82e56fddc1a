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
import { MAX_TOOL_CALLS } from '../../completion/chat.ts';
import { readTextToolCalls } from '../../completion/tool-text.ts';
import type { Clock } from '../../clock.ts';
import { LoomError } from '../../errors.ts';
import { quoted } from '../../text/quote.ts';
import { parseEditBlocks, type EditBlock } from '../edits/index.ts';
import { describeDiagnostics } from '../intel/edit-checks.ts';
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
  /** The system prompt and the first user message (or, for a follow-up, the conversation so far and the new message). */
  messages: ChatMessage[];
  budgets: AgentBudgets;
  clock: Clock;
  /** When the task started (or, for a follow-up, when the message came), on `clock`. */
  startedAt: number;
  /** Model turns the task took before (a follow-up's turns are numbered on from them); the budgets count this run's only. */
  turnsBefore?: number;
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
  // The wall-time budget also aborts a model call or a command under way; it stands still while
  // the task waits for the user to approve a command (that wait has its own time limit).
  const wallTime = new WallTime(clock, startedAt + budgets.timeoutSeconds * 1000);
  const signal = AbortSignal.any([options.signal, wallTime.signal]);
  const messages = [...options.messages];
  const loops = new LoopDetector();
  const ask = options.context.approve;
  const context: ToolContext = {
    ...options.context,
    signal,
    ...(ask
      ? {
          approve: async (command: string) => {
            const resume = wallTime.pause();
            try {
              return await ask(command);
            } finally {
              resume();
            }
          },
        }
      : {}),
  };
  const turnsBefore = options.turnsBefore ?? 0;
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
      const stop = stopped() ?? (steps >= budgets.maxSteps ? end('max_steps') : room < 1 ? end('max_tokens') : wallTime.over() ? end('timeout') : undefined);
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
      const turnNumber = turnsBefore + steps;
      await options.record({
        kind: 'model',
        turn: turnNumber,
        text: result.text,
        tokens: { prompt: result.usage.promptTokens, completion: result.usage.completionTokens },
        durationMs: Math.max(0, Math.round(clock.now() - started)),
      });
      // The same limit as a provider's for native calls (MAX_TOOL_CALLS), for calls written as text.
      if (turn.calls.length > MAX_TOOL_CALLS) {
        return end('model_error', { error: `The model's answer was too long: more than ${MAX_TOOL_CALLS} tool calls. None of them ran.` });
      }
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
        await options.record({ kind: 'notice', turn: turnNumber, text: told });
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
            text: `Your call of ${call.name ? shownName(call.name) : 'a tool'} could not be read: ${call.error} Send it again with its arguments as one JSON object.`,
          };
        else if (!known) outcome = { ok: false, text: `There is no tool ${quoted(call.name)}. The tools are: ${options.toolbox.names().join(', ')}.` };
        else {
          usable++;
          const args = call.arguments;
          outcome = await checked(context, known.targets?.(args, context) ?? [], () => known.run(args, context));
        }
        messages.push({ role: 'tool', toolCallId: call.id, content: outcome.text });
        await options.record({
          kind: 'tool',
          turn: turnNumber,
          tool: known ? call.name : loggedName(call.name),
          arguments: call.argumentsText,
          ok: outcome.ok,
          text: outcome.text,
          ...(outcome.diff ? { diff: outcome.diff } : {}),
          ...(outcome.diagnostics ? { diagnostics: outcome.diagnostics } : {}),
        });
        actions.push({ name: call.name, arguments: call.argumentsText, result: outcome.text });
      }
      // What the blocks did is logged as tool steps; what the runtime adds of its own, as notices.
      const results: string[] = [];
      const notices: string[] = turn.problems.map((problem) => `Not applied: ${problem}`);
      for (const [index, block] of turn.blocks.entries()) {
        if (signal.aborted) return end(stopReason(signal));
        const outcome = await checked(context, blockTargets(context, block), () => applyEditBlock(context.files, block, index + 1));
        const argumentsText = JSON.stringify({ path: block.path, search: block.search, replace: block.replace });
        await options.record({
          kind: 'tool',
          turn: turnNumber,
          tool: 'edit_file',
          arguments: argumentsText,
          ok: outcome.ok,
          text: outcome.text,
          ...(outcome.diff ? { diff: outcome.diff } : {}),
          ...(outcome.diagnostics ? { diagnostics: outcome.diagnostics } : {}),
          block: true,
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
        if (notices.length) await options.record({ kind: 'notice', turn: turnNumber, text: notices.join('\n') });
      }
    }
  } finally {
    wallTime.stop();
  }
}

/**
 * The wall-time budget: a deadline on the clock and a timer that aborts `signal` at it. Paused
 * while the task waits for the user (`pause` returns the way to resume): the deadline moves on
 * by the time waited.
 */
class WallTime {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private pausedAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    private deadline: number,
  ) {
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the time is up (never while paused). */
  over(): boolean {
    return this.pausedAt === undefined && this.clock.now() >= this.deadline;
  }

  /** Stops the clock of the budget until the returned function is called (once). */
  pause(): () => void {
    if (this.pausedAt !== undefined) return () => {};
    const pausedAt = this.clock.now();
    this.pausedAt = pausedAt;
    clearTimeout(this.timer);
    return () => {
      this.deadline += Math.max(0, this.clock.now() - pausedAt);
      this.pausedAt = undefined;
      if (!this.controller.signal.aborted) this.arm();
    };
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new TaskStop('timeout')), Math.max(0, this.deadline - this.clock.now()));
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

/**
 * Runs a change with the diagnostics checks around it, where the task has them: those of
 * `targets` (and their importers) taken before, compared after for the files it changed, and
 * what changed told after its result. A check cut short by the task's end leaves the outcome
 * without it (the loop then ends the task with its reason).
 */
async function checked(context: ToolContext, targets: readonly string[], run: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  const { checks, signal } = context;
  if (!checks) return run();
  // A check stopped by the task's end answers as a tool does then; the loop ends the task next.
  const stopping = (error: unknown) => {
    if (!signal.aborted) throw error;
  };
  if (targets.length) {
    try {
      await checks.prepare(targets, signal);
    } catch (error) {
      stopping(error);
      return { ok: false, text: 'Stopped: the task is ending.' };
    }
  }
  const outcome = await run();
  if (!outcome.changed?.length) return outcome;
  let report;
  try {
    report = await checks.check(outcome.changed, signal);
  } catch (error) {
    stopping(error);
    return outcome;
  }
  if (!report) return outcome;
  const told = describeDiagnostics(report);
  return { ...outcome, text: told ? `${outcome.text}\n\n${told}` : outcome.text, diagnostics: report };
}

/** The file an edit block may change. */
function blockTargets(context: ToolContext, block: EditBlock): string[] {
  try {
    return [context.files.resolve(block.path)];
  } catch {
    return [];
  }
}

/** Longest tool name a step log entry keeps: a tool's name is short, what a model sends may not be. */
const LOGGED_NAME_CHARS = 64;

/** A name the model wrote, as what it is told quotes it: a plain name as it is, anything else quoted and cut (text/quote.ts). */
function shownName(name: string): string {
  return /^[\w.-]{1,64}$/.test(name) ? name : quoted(name);
}

/** A name no tool has, as the step log keeps it: cut, saying so. */
function loggedName(name: string): string {
  return name.length <= LOGGED_NAME_CHARS ? name : `${name.slice(0, LOGGED_NAME_CHARS)}… (${name.length} characters)`;
}

function stopReason(signal: AbortSignal): EndReason {
  return signal.reason instanceof TaskStop ? signal.reason.reason : 'cancelled';
}
