// The text form of tool calls, for servers and models without native tool calling: the tools
// are described in the system prompt and the model writes each call as a JSON object between
// <tool_call> tags, the form Qwen2.5, Hermes and many open models were trained on:
//
//   <tool_call>
//   {"name": "read_file", "arguments": {"path": "src/app.ts"}}
//   </tool_call>
//
// Results go back in a user turn as <tool_response name="…"> blocks. The provider returns the
// model's answer as text; the loop reads the calls out of it with readTextToolCalls.
import { randomBytes } from 'node:crypto';
import type { ChatTool, ParsedToolCall, ToolCall } from './chat.ts';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan, parseToolArguments, TOO_DEEP } from './chat.ts';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/** The system prompt's part that declares the tools and how to call them. */
export function describeToolsInText(tools: readonly ChatTool[]): string {
  const signatures = tools.map((tool) => JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  return [
    '# Tools',
    '',
    'You can call the tools below. To call one, write a JSON object with its name and arguments between <tool_call> and </tool_call> tags, on lines of their own:',
    '',
    OPEN,
    '{"name": "tool_name", "arguments": {"argument": "value"}}',
    CLOSE,
    '',
    'You may write several calls in one answer. After your calls, stop: the results come back in the next message, each between <tool_response> tags. Call only the tools listed here, with arguments that follow their JSON Schema.',
    '',
    '<tools>',
    ...signatures,
    '</tools>',
  ].join('\n');
}

/**
 * A call of an earlier turn, as the model would have written it (arguments that do not parse,
 * or nest too deep to be written again, as their text in a string).
 */
export function toolCallText(call: ToolCall): string {
  const parsed = parseToolArguments(call.argumentsText);
  const args = parsed.arguments ?? call.argumentsText;
  return `${OPEN}\n${JSON.stringify({ name: call.name, arguments: args })}\n${CLOSE}`;
}

/** A tool's result, as the next user turn carries it. */
export function toolResultText(name: string, content: string): string {
  return `<tool_response name="${name}">\n${content}\n</tool_response>`;
}

/** A fresh tool call id (`call_` and 24 hex digits), for calls a server or model gave none. */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/**
 * The tool calls written in the text form in a model's answer, and the answer without them.
 * A block that is not a JSON object with a string `name` and object `arguments` (or one cut
 * off before its closing tag) is still returned, with its `error`: the loop tells the model.
 * A block wrapped in a markdown fence is read too; `parameters` is taken for `arguments`.
 */
export function readTextToolCalls(answer: string): { text: string; calls: ParsedToolCall[] } {
  const calls: ParsedToolCall[] = [];
  let text = '';
  let at = 0;
  for (;;) {
    const start = answer.indexOf(OPEN, at);
    if (start < 0) break;
    text += answer.slice(at, start);
    const end = answer.indexOf(CLOSE, start + OPEN.length);
    const body = answer.slice(start + OPEN.length, end < 0 ? answer.length : end);
    calls.push(readCall(body, end < 0));
    at = end < 0 ? answer.length : end + CLOSE.length;
  }
  text += answer.slice(at);
  return { text: calls.length ? text.replace(/\n{3,}/g, '\n\n').trim() : answer, calls };
}

function readCall(body: string, unterminated: boolean): ParsedToolCall {
  const id = newToolCallId();
  const raw = body
    .trim()
    .replace(/^```[a-z]*\n([\s\S]*?)\n?```$/i, '$1')
    .trim();
  const fail = (error: string, name = ''): ParsedToolCall => ({ id, name, argumentsText: raw, error });
  if (unterminated) return fail(`The call was cut off before ${CLOSE}.`, nameIn(raw));
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return fail(`The call is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`, nameIn(raw));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('The call must be a JSON object {"name": …, "arguments": {…}}.');
  const call = value as Record<string, unknown>;
  if (typeof call.name !== 'string' || call.name === '') return fail('The call has no "name".');
  const args = call.arguments ?? call.parameters ?? {};
  if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)) return fail(TOO_DEEP, call.name);
  // Some models write the arguments as a JSON string, as OpenAI's wire format has them.
  const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
  const parsed = parseToolArguments(argumentsText);
  return parsed.error === undefined
    ? { id, name: call.name, argumentsText, arguments: parsed.arguments }
    : { id, name: call.name, argumentsText, error: parsed.error };
}

/** The name of a call whose JSON is broken, when it can still be read. */
function nameIn(raw: string): string {
  return /"name"\s*:\s*"([A-Za-z0-9_-]{1,64})"/.exec(raw)?.[1] ?? '';
}
