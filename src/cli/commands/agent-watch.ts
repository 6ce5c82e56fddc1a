// `loom agent run --watch` and `loom agent say`: starts a task (or continues one with a message)
// and follows it on the event stream (/events, opened with a single-use ticket) to its end,
// printing its steps and edits as diffs, and a command it waits for the user to approve with
// where to answer (the window), or each event as one JSON line; then its status. The stream is
// opened before the task starts, so that no event of it is missed; a gap in the stream's
// sequence (events dropped for a slow reader) or the stream closing makes it ask the task's
// status instead of waiting for an end it may never see.
import WebSocket from 'ws';
import type { LocalClient } from '../../client/local.ts';
import type { AgentTask } from '../../contracts/local-resources.ts';
import type { CallOutput } from '../../client/local.ts';
import { CliError, localCall as call } from '../errors.ts';
import { oneLine, print, printJson } from '../output.ts';

interface StreamEvent {
  seq: number;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

/** Longest model text a step line shows (the step log has it all). */
const SHOWN_TEXT = 300;

/**
 * Starts the task with `start` (runAgent, or sendAgentMessage for a follow-up) and follows it to
 * its end; resolves with its final status. `url` is the server's: the window, where an approval
 * is answered, is its page. Throws CliError when the task cannot start or the server goes away.
 *
 * @example await watchTask(client, url, () => client.call('runAgent', { body }), { json: false });
 */
export async function watchTask(
  client: LocalClient,
  url: string,
  start: () => Promise<CallOutput<'runAgent'>>,
  options: { json: boolean },
): Promise<AgentTask> {
  const { ticket } = await call(() => client.call('issueEventTicket'));
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/events?ticket=${encodeURIComponent(ticket)}`);
  try {
    const stream = new TaskStream(socket);
    await stream.opened;
    const started = await call(start);
    if (!options.json) print(`${started.taskId} running (estimated ${started.estimatedTime} s)\n`);
    await stream.follow(started.taskId, (event) => (options.json ? printJson(event, 0) : printEvent(event, url)));
    const status = await call(() => client.call('getAgentStatus', { params: { taskId: started.taskId } }));
    if (options.json) printJson(status, 0);
    else print(describeTask(status, { diffs: false, windowUrl: windowOf(url) }));
    return status;
  } finally {
    socket.terminate();
  }
}

/** Where the user answers an approval: the window, the server's page. */
function windowOf(url: string): string {
  return `${url.replace(/\/$/, '')}/`;
}

/** An approval as one line: the command, and where and until when to answer it. */
function approvalLine(command: string, expiresAt: string, url: string): string {
  return `waiting for your approval to run: ${oneLine(command)}\n  Answer in the window, ${windowOf(url)} (opened signed in by loom serve --open), by ${oneLine(expiresAt)}; unanswered, it is denied.\n`;
}

const DECIDED: Record<string, string> = {
  once: 'approved for this once',
  always: 'approved, and added to agents.commands',
  deny: 'not approved',
  expired: 'not answered in time: not run',
};

/** The event stream, its events kept until the task to follow is known. */
class TaskStream {
  readonly opened: Promise<void>;
  private readonly events: StreamEvent[] = [];
  private wake: () => void = () => {};
  private closed = false;
  private lastSeq: number | undefined;
  private gap = false;

  constructor(socket: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      socket.on('error', (error) => reject(new CliError(`Cannot open the event stream at ${socket.url.replace(/\?.*$/, '')}: ${error.message}.`)));
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as StreamEvent | { type: 'hello'; seq: number };
        if (message.type === 'hello') {
          this.lastSeq = message.seq;
          return resolve();
        }
        const event = message as StreamEvent;
        if (this.lastSeq !== undefined && event.seq !== this.lastSeq + 1) this.gap = true;
        this.lastSeq = event.seq;
        this.events.push(event);
        this.wake();
      });
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Hands each event of the task to `onEvent` until its agent:complete (or a gap, or the stream's end). */
  async follow(taskId: string, onEvent: (event: StreamEvent) => void): Promise<void> {
    for (;;) {
      for (let event = this.events.shift(); event; event = this.events.shift()) {
        if (event.data.taskId !== taskId || !event.type.startsWith('agent:')) continue;
        onEvent(event);
        if (event.type === 'agent:complete') return;
      }
      // Events were dropped, or the stream ended: the task's status says whether it is over.
      if (this.gap || this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

function printEvent(event: StreamEvent, url: string): void {
  const data = event.data;
  if (event.type === 'agent:approval') {
    if (data.decision === undefined) print(`· ${approvalLine(String(data.command), String(data.expiresAt), url)}`);
    else if (DECIDED[String(data.decision)]) print(`· ${oneLine(String(data.command))}: ${DECIDED[String(data.decision)]}\n`);
    return;
  }
  if (event.type !== 'agent:step') return;
  const text = String(data.text ?? '').trim();
  const head = `· turn ${String(data.turn)}`;
  if (data.kind === 'user') {
    print(`· you said: ${oneLine(shorten(text))}\n`);
  } else if (data.kind === 'model') {
    if (text !== '') print(`${head}: ${oneLine(shorten(text))}\n`);
  } else if (data.kind === 'tool') {
    print(`${head}: ${oneLine(String(data.tool))} ${data.ok === false ? 'refused' : 'ok'}: ${oneLine(shorten(text.split('\n')[0] ?? ''))}\n`);
    if (typeof data.diff === 'string' && data.diff !== '') print(data.diff.endsWith('\n') ? data.diff : `${data.diff}\n`);
  } else print(`${head}: Loom told the model: ${oneLine(shorten(text.split('\n')[0] ?? ''))}\n`);
}

function shorten(text: string): string {
  return text.length > SHOWN_TEXT ? `${text.slice(0, SHOWN_TEXT)}…` : text;
}

/**
 * A task as lines: its status and why, counters, the user's follow-up messages, the command it
 * waits to have approved and where to answer (`windowUrl`), summary, and each change (with its
 * diff when `diffs`).
 *
 * @example describeTask(status, { diffs: true, windowUrl: 'http://127.0.0.1:27432/' }) // 'task_… completed (done): 2 steps, 2100 tokens\n…'
 */
export function describeTask(task: AgentTask, options: { diffs: boolean; windowUrl?: string }): string {
  const why = task.reason && task.reason !== 'done' ? ` (${task.reason})` : '';
  const lines = [`${task.taskId} ${task.status}${why}: ${task.steps} step${task.steps === 1 ? '' : 's'}, ${task.tokens} tokens, model ${oneLine(task.model)}`];
  lines.push(`  task: ${oneLine(task.task)}`);
  for (const exchange of task.conversation.slice(1)) lines.push(`  then: ${oneLine(exchange.message)}`);
  if (task.approval) {
    const where = options.windowUrl ? `answer in the window, ${options.windowUrl} (opened signed in by loom serve --open)` : 'answer in the window';
    lines.push(`  waiting for your approval to run: ${oneLine(task.approval.command)}; ${where}, by ${oneLine(task.approval.expiresAt)}`);
  }
  if (task.error) lines.push(`  error: ${oneLine(task.error)}`);
  if (task.summary) lines.push(`  summary: ${task.summary}`);
  if (task.revertedAt) lines.push(`  reverted at ${task.revertedAt}`);
  lines.push(task.changes.length ? '  changes:' : '  no changes');
  for (const change of task.changes) lines.push(`    ${change.action} ${oneLine(change.file)}${change.from ? ` (from ${oneLine(change.from)})` : ''}`);
  let text = `${lines.join('\n')}\n`;
  if (options.diffs) for (const change of task.changes) if (change.diff) text += change.diff.endsWith('\n') ? change.diff : `${change.diff}\n`;
  return text;
}
