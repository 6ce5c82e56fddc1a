// The chat contract between the agent loop and the model providers that can hold a
// conversation (gguf, openai): messages, tool declarations, a request and its result. The loop
// owns the conversation and executes tools; a provider only turns the conversation into the
// model's next turn. A malformed tool call is data the loop corrects, never an exception.
import type { Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';

/** Epoch milliseconds that never go backwards: a turn's duration survives clock adjustments. */
export const steadyClock: Clock = { now: () => performance.timeOrigin + performance.now() };

/** A JSON Schema (draft 2020-12 subset the providers understand; see docs/models.md). */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface ChatTool {
  /** `[A-Za-z0-9_-]`, 1 to 64 characters (what OpenAI-compatible servers accept). */
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`type: "object"`). */
  parameters: JsonSchema;
}

/** A tool call as the model wrote it: the arguments are its raw text. */
export interface ToolCall {
  /** Ties the call to its result (`role: "tool"`, `toolCallId`). */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON when the model got it right). */
  argumentsText: string;
}

/** A tool call of a result: its arguments parsed, or why they could not be. */
export type ParsedToolCall = ToolCall & ({ arguments: Record<string, unknown>; error?: undefined } | { arguments?: undefined; error: string });

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  /** Tools the model may call; none: a plain chat. */
  tools?: ChatTool[];
  /** Upper bound on generated tokens, at least 1. */
  maxTokens: number;
  /** Sampling temperature, 0 (the default: greedy, reproducible) to 2. */
  temperature?: number;
  /**
   * Names the conversation (an agent task's id): a provider that keeps the prompt's evaluated
   * tokens (gguf's KV cache) keeps them for its next turn, so a turn evaluates only what was
   * appended. Conversations without one share a slot.
   */
  conversation?: string;
  /** Aborting stops the model (the HTTP connection closes, generation ends at the next token). */
  signal: AbortSignal;
}

/**
 * - `stop`: the model ended its turn;
 * - `tool_calls`: it stopped to have tools called;
 * - `length`: `maxTokens` (or the room left in the model's window) ended it;
 * - `content_filter`: the server withheld the rest.
 */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  /**
   * `server`: reported by the server (`usage`); `tokenizer`: counted with the model's own
   * tokenizer; `estimate`: the server reported nothing, so streamed pieces (about one token
   * each) and prompt characters (about four per token) were counted.
   */
  source: 'server' | 'tokenizer' | 'estimate';
}

export interface ChatResult {
  /** The model's text (thoughts a reasoning model sets apart are not included). */
  text: string;
  toolCalls: ParsedToolCall[];
  finishReason: FinishReason;
  usage: ChatUsage;
  /**
   * How the tools reached the model: `native` (the server's or the chat template's own tool
   * calling), `text` (the server refused tools: they were described in the system prompt and
   * calls, if any, are in `text` in the form of docs/models.md, see `readTextToolCalls`), or
   * `none` (the request had no tools).
   */
  toolMode: 'native' | 'text' | 'none';
  /**
   * The model's work on this turn, in milliseconds on this machine: the speed the loop
   * estimates a task's duration from. It starts when the request goes to the server (openai)
   * or the turn starts on the model (gguf: loading the model or waiting for another turn on
   * the same context sequence is not the model's speed).
   */
  timing: {
    /** To the result. */
    totalMs: number;
    /** To the first generated piece (the prompt's evaluation, mostly); absent when nothing was generated. */
    firstTokenMs?: number;
  };
  /** The provider's model name. */
  model: string;
}

/** What a provider that can chat offers (capabilities.chat says whether it is a chat model). */
export interface ChatProvider {
  readonly name: string;
  /**
   * The model's next turn. Throws LoomError `bad_request` (a malformed conversation, or one the
   * model's window cannot hold), `model_unavailable`, `model_failed` or `model_timeout`; an
   * aborted request rejects with the signal's reason at once.
   */
  chat(request: ChatRequest): Promise<ChatResult>;
}

/** Whether a request involves tools at all: declares some, or has calls and results in its history. */
export function involvesTools(request: ChatRequest): boolean {
  return (request.tools?.length ?? 0) > 0 || request.messages.some((message) => message.role === 'tool');
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks a request's shape before a model sees it (it may come from JSON): throws LoomError
 * `bad_request` naming the first problem, such as a tool result without its call, a call
 * without its result, or a tool declared twice.
 */
export function checkChatRequest(request: ChatRequest): void {
  const bad = (message: string) => new LoomError('bad_request', message);
  const quote = (text: string) => JSON.stringify(text.slice(0, 80));
  if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1)
    throw bad(`maxTokens must be a whole number of at least 1, not ${String(request.maxTokens).slice(0, 40)}.`);
  const temperature = request.temperature ?? 0;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
    throw bad(`temperature must be between 0 and 2, not ${String(request.temperature).slice(0, 40)}.`);
  if (!Array.isArray(request.messages) || request.messages.length === 0) throw bad('A chat needs at least one message.');
  if (request.tools !== undefined && !Array.isArray(request.tools)) throw bad('tools must be a list.');
  const names = new Set<string>();
  for (const tool of request.tools ?? []) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      throw bad(`The tool name ${isRecord(tool) && typeof tool.name === 'string' ? quote(tool.name) : ''} is not 1 to 64 letters, digits, _ or -.`);
    if (names.has(tool.name)) throw bad(`The tool ${tool.name} is declared twice.`);
    names.add(tool.name);
    if (typeof tool.description !== 'string') throw bad(`The tool ${tool.name} has no description.`);
    if (!isRecord(tool.parameters) || tool.parameters.type !== 'object')
      throw bad(`The parameters of the tool ${tool.name} must be a JSON Schema of type "object".`);
  }
  // Every call is answered by a tool message before the next assistant or user turn, and every
  // tool message answers a call of the assistant turn before it (ids are unique within a turn;
  // some servers number their calls from 0 again on every turn).
  let open = new Set<string>();
  for (const [index, message] of request.messages.entries()) {
    if (!isRecord(message) || !ROLES.has(message.role as string) || typeof message.content !== 'string') {
      throw bad(`Message ${index} must have a role (system, user, assistant or tool) and a text content.`);
    }
    if (message.role === 'tool') {
      if (typeof message.toolCallId !== 'string' || !open.has(message.toolCallId)) {
        throw bad(
          `Message ${index} is a tool result for ${typeof message.toolCallId === 'string' ? quote(message.toolCallId) : 'no call'}, which no earlier assistant turn called (or which already has its result).`,
        );
      }
      open.delete(message.toolCallId);
      continue;
    }
    if (open.size > 0) throw bad(`Message ${index} comes before the results of the tool calls ${[...open].map(quote).join(', ')}.`);
    if (message.role === 'system' && index !== 0) throw bad(`Message ${index} is a system message; only the first message may be one.`);
    if (message.role === 'assistant') {
      open = new Set();
      if (message.toolCalls !== undefined && !Array.isArray(message.toolCalls)) throw bad(`Message ${index} has toolCalls that are not a list.`);
      for (const call of message.toolCalls ?? []) {
        if (!isRecord(call) || typeof call.name !== 'string' || typeof call.argumentsText !== 'string')
          throw bad(`Message ${index} has a tool call without a name or an argumentsText.`);
        if (typeof call.id !== 'string' || call.id === '' || open.has(call.id))
          throw bad(`Message ${index} has a tool call with ${typeof call.id === 'string' && call.id !== '' ? `the id ${quote(call.id)} twice` : 'no id'}.`);
        open.add(call.id);
      }
    }
  }
  if (open.size > 0) throw bad(`The conversation ends before the results of the tool calls ${[...open].map(quote).join(', ')}.`);
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Most tool calls one answer may carry, natively or written as <tool_call> text. Models make a
 * handful a turn; an answer of thousands is broken or hostile, and each call is a step the log
 * keeps and a result the next prompt carries. Past it the answer is refused whole: the task
 * ends `model_error`, none of its calls run.
 */
export const MAX_TOOL_CALLS = 256;

/**
 * How deep a tool call's arguments may nest arrays and objects. Tools take an object of plain
 * values; what a model sends may nest 100,000 deep, which JSON.parse reads (without recursion)
 * but anything that walks or writes the value again (JSON.stringify, a key sort) would not,
 * running out of stack.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** Why arguments nested past MAX_ARGUMENT_DEPTH are refused, as the model is told. */
export const TOO_DEEP = `The arguments are nested more than ${MAX_ARGUMENT_DEPTH} deep; a tool takes an object of plain values.`;

/**
 * Whether `value` (parsed JSON) nests arrays and objects more than `max` deep (a flat object is
 * 1 deep). Walks it with its own stack: no recursion, linear in its size.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** A tool call's arguments text parsed: a JSON object, or the reason it is not one. */
export function parseToolArguments(text: string): { arguments: Record<string, unknown>; error?: undefined } | { arguments?: undefined; error: string } {
  // An empty text is what some servers send for a call without arguments.
  if (text.trim() === '') return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `The arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: `The arguments must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.` };
  if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) return { error: TOO_DEEP };
  return { arguments: value as Record<string, unknown> };
}
