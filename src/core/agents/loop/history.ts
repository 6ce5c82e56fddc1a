// A task's conversation rebuilt for the model from its step log, when the user continues the
// task (AgentManager.followUp) — in the same run of Loom or after a restart, the same way: the
// log is what the store keeps. Each model turn becomes the assistant's message with its tool
// calls, their results, and what Loom told it (edit blocks' results, corrections); each user
// message its own. Read from the newest step back, within a budget: past it, older tool results
// are left out first (the model can call the tool again), then whole older turns, so that what
// is read and sent stays bounded however long the task ran.
import type { ChatMessage, ToolCall } from '../../completion/chat.ts';
import { readTextToolCalls } from '../../completion/tool-text.ts';
import type { AgentStep } from '../types.ts';
import { ELIDED } from './conversation.ts';

/** Characters of earlier conversation a follow-up carries: about 16,000 tokens, leaving most of CONVERSATION_CHARS to the new work. */
export const HISTORY_CHARS = 64_000;
/** Steps read from the store at a time. */
const PAGE = 200;
const LEFT_OUT = '[The earlier part of this conversation was left out to save room. The task is above; the latest turns follow.]';

export interface HistorySource {
  /** Steps with an index below `before`, newest first, at most `limit`. */
  stepsBefore(before: number, limit: number): Promise<AgentStep[]>;
}

export interface HistoryOptions {
  /** Steps from this index on are not history (the new message's own entry). */
  before: number;
  /** The user's messages in full, by the index of their `user` entry (the log keeps 4,000 characters). */
  messages: ReadonlyMap<number, string>;
  /** Characters at most; HISTORY_CHARS by default. */
  budget?: number;
}

/**
 * The conversation of the log's steps before `options.before`, oldest first, without the system
 * prompt and the task's first message (the caller writes those anew).
 *
 * @example
 * const history = await rebuildHistory({ stepsBefore: (before, limit) => repository.stepsBefore(taskId, { before, limit }) }, { before: 42, messages });
 */
export async function rebuildHistory(source: HistorySource, options: HistoryOptions): Promise<ChatMessage[]> {
  const budget = options.budget ?? HISTORY_CHARS;
  const kept: ChatMessage[][] = [];
  let used = 0;
  let eliding = false;
  let leftOut = false;
  /** The steps after the model turn being read back to (its calls, results, notices), oldest first. */
  let pending: AgentStep[] = [];
  let before = options.before;
  reading: for (;;) {
    const page = await source.stepsBefore(before, PAGE);
    if (page.length === 0) break;
    for (const step of page) {
      before = step.index;
      // What the prompt carried (rules, the map) is made anew for the follow-up, not history.
      if (step.context !== undefined) continue;
      if (step.kind === 'tool' || step.kind === 'notice') {
        pending.unshift(step);
        continue;
      }
      let group = step.kind === 'user' ? [{ role: 'user' as const, content: options.messages.get(step.index) ?? step.text }] : turnMessages(step, pending);
      pending = [];
      if (!eliding && used + sizeOf(group) > budget) eliding = true;
      if (eliding) group = group.map(elided);
      const size = sizeOf(group);
      if (used + size > budget) {
        leftOut = true;
        break reading;
      }
      used += size;
      kept.push(group);
    }
  }
  const history = kept.reverse().flat();
  return leftOut ? [{ role: 'user', content: LEFT_OUT }, ...history] : history;
}

/**
 * Joins consecutive user messages into one: some models' chat templates insist that user and
 * assistant take turns, and a rebuilt conversation may put a note beside the user's message.
 */
export function joinUserMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'user' && last?.role === 'user') out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${message.content}` };
    else out.push(message);
  }
  return out;
}

/** A model turn as it went: the answer with its calls, the calls' results, then what Loom said of its edit blocks and its notes. */
function turnMessages(model: AgentStep, after: readonly AgentStep[]): ChatMessage[] {
  const calls = after.filter((step) => step.kind === 'tool' && step.block !== true);
  const blocks = after.filter((step) => step.kind === 'tool' && step.block === true);
  const notices = after.filter((step) => step.kind === 'notice');
  // Calls a server without tool calling wrote as text are sent as calls, as they were.
  const text = calls.length && model.text.includes('<tool_call>') ? readTextToolCalls(model.text).text : model.text;
  const toolCalls: ToolCall[] = calls.map((step) => ({ id: callId(step), name: step.tool ?? 'unknown', argumentsText: step.arguments ?? '{}' }));
  const said = [...(blocks.length ? ['Your edit blocks:', ...blocks.map((step) => step.text)] : []), ...notices.map((step) => step.text)];
  return [
    { role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) },
    ...calls.map((step): ChatMessage => ({ role: 'tool', toolCallId: callId(step), content: step.text })),
    ...(said.length ? [{ role: 'user' as const, content: said.join('\n') }] : []),
  ];
}

/** A call's id, made from its place in the log (the model's own ids are not kept). */
function callId(step: AgentStep): string {
  return `call_${step.index}`;
}

function elided(message: ChatMessage): ChatMessage {
  return message.role === 'tool' && message.content.length > ELIDED.length ? { ...message, content: ELIDED } : message;
}

function sizeOf(messages: readonly ChatMessage[]): number {
  let size = 0;
  for (const message of messages) {
    size += message.content.length;
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) size += call.name.length + call.argumentsText.length;
  }
  return size;
}
