// How `loom composer` shows a session to a person: its status line, its plan, its edits as a
// patch, and its events as they come. Everything here came from the server or the model, so
// a value inside a line goes through oneLine, and print() escapes the rest.
import type { ComposerSession } from '../../contracts/composer.ts';
import type { ComposerStreamEvent } from '../../client/composer-events.ts';
import { oneLine } from '../output.ts';

type Edit = ComposerSession['edits'][number];
type Plan = NonNullable<ComposerSession['plan']>;

const SHOWN_TEXT = 160;

/**
 * A session in a few lines: id, status, mode, counters, then its plan or its edits (with their
 * diffs when `diffs`).
 *
 * @example describeSession(session, { diffs: false }) // '3f2a… completed (edit): 2 steps, 900 tokens\n…'
 */
export function describeSession(session: ComposerSession, options: { diffs: boolean }): string {
  const lines = [
    `${session.sessionId} ${session.status} (${session.mode}): ${session.steps} step${session.steps === 1 ? '' : 's'}, ${session.tokens} tokens${session.model ? `, model ${oneLine(session.model)}` : ''}`,
    `  prompt: ${oneLine(shorten(session.prompt))}`,
    `  files: ${session.files.map(oneLine).join(' ')}${session.workspace ? ` in workspace ${oneLine(session.workspace)}` : ' (attached)'}`,
  ];
  if (session.error) lines.push(`  error: ${oneLine(session.error)}`);
  if (session.branch)
    lines.push(
      `  branch: ${oneLine(session.branch)}${session.commit ? ` at ${oneLine(session.commit.slice(0, 12))}` : ''}${session.pushed ? ' (pushed)' : ''}`,
    );
  if (session.summary) lines.push(`  summary: ${session.summary}`);
  let text = `${lines.join('\n')}\n`;
  if (session.plan) text += describePlan(session.plan);
  if (session.mode === 'edit') {
    text += session.edits.length ? `  edits:\n${session.edits.map((edit) => `    ${describeEdit(edit)}\n`).join('')}` : '  no edits\n';
    if (options.diffs) text += patchOf(session.edits);
  }
  return text;
}

/** A plan: its summary, numbered steps and the files it would touch. */
export function describePlan(plan: Plan): string {
  const lines = [`Plan: ${plan.summary}`];
  plan.steps.forEach((step, index) => lines.push(`  ${index + 1}. ${oneLine(step)}`));
  if (plan.files.length) lines.push(`  files: ${plan.files.map(oneLine).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

export function describeEdit(edit: Pick<Edit, 'file' | 'action' | 'from'>): string {
  return `${edit.action} ${oneLine(edit.file)}${edit.from ? ` (from ${oneLine(edit.from)})` : ''}`;
}

/** The edits as one patch: each edit's unified diff, in order. */
export function patchOf(edits: readonly Edit[]): string {
  return edits.map((edit) => (edit.diff === '' || edit.diff.endsWith('\n') ? edit.diff : `${edit.diff}\n`)).join('');
}

/** One event as a line for a person; undefined for events said otherwise (an edit's diff, a plan). */
export function describeEvent(event: ComposerStreamEvent): string | undefined {
  const data = event.data;
  switch (event.type) {
    case 'status': {
      const error = typeof data.error === 'string' && data.error ? `: ${oneLine(data.error)}` : '';
      // A later attempt: its runner stopped (killed, or shut down) and another started over.
      const again =
        data.status === 'running' && typeof data.attempt === 'number' && data.attempt > 1
          ? ` (attempt ${data.attempt}: its runner stopped, so it started over; what came before no longer counts)`
          : '';
      return `● ${oneLine(String(data.status))}${error}${again}\n`;
    }
    case 'step': {
      const text = oneLine(
        shorten(
          String(data.text ?? '')
            .trim()
            .split('\n')[0] ?? '',
        ),
      );
      const head = `· turn ${oneLine(String(data.turn))}`;
      if (data.kind === 'tool') return `${head}: ${oneLine(String(data.tool))} ${data.ok === false ? 'refused' : 'ok'}${text ? `: ${text}` : ''}\n`;
      return text ? `${head}: ${text}\n` : undefined;
    }
    case 'push':
      return `pushed ${oneLine(String(data.branch))} at ${oneLine(String(data.commit).slice(0, 12))}\n`;
    default:
      return undefined;
  }
}

function shorten(text: string): string {
  return text.length > SHOWN_TEXT ? `${text.slice(0, SHOWN_TEXT)}…` : text;
}
