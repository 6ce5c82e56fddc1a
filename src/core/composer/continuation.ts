// A composer session continued with the user's messages (docs/composer.md, "Follow-ups"): its
// copy is made again as the session first found it, its earlier edits are written back on it
// (and seed the change log, so that every edit stays a change from the files as first found),
// and the model gets the conversation: the task, then for each message its own last words
// before it and the message. The tool calls of earlier runs are not kept; the files carry
// their result, and the model is told to read a file again before it changes it.
import { ChangeLog, type ChangeEntry } from '../agents/files/change-log.ts';
import type { FolderFiles } from '../agents/files/agent-files.ts';
import { followUpMessage } from '../agents/loop/prompt.ts';
import type { AgentChangeSummary } from '../agents/types.ts';
import type { ChatMessage } from '../completion/chat.ts';
import { LoomError } from '../errors.ts';
import { contentHash } from './hash.ts';
import type { ComposerEdit, ComposerExchange } from './types.ts';

/**
 * Writes a session's earlier edits on its fresh copy and answers the change log they make:
 * each edit's file must be as the session first found it (its `baseHash`), else the copy is
 * not the session's and the run fails rather than edit something else.
 *
 * @example
 * const changes = await replayEdits(files, record.startEdits ?? []); // the copy now holds the earlier result
 */
export async function replayEdits(files: FolderFiles, edits: readonly ComposerEdit[]): Promise<ChangeLog> {
  const entries: ChangeEntry[] = [];
  // Read every file first: a rename's source may be another edit's path.
  const found = edits.map((edit) => {
    const origin = edit.action === 'created' ? null : edit.action === 'renamed' ? edit.from! : edit.file;
    const before = origin === null ? null : files.read(files.key(origin));
    const hash = before === null ? null : contentHash(before);
    if (hash !== edit.baseHash) {
      throw new LoomError(
        'validation_error',
        `${origin ?? edit.file} is not as the session first found it, so its earlier edits cannot be carried on.`,
        'Start a new session.',
      );
    }
    return { edit, origin, before };
  });
  for (const { edit, origin } of found) if (origin !== null && (edit.action === 'deleted' || edit.action === 'renamed')) await files.remove(files.key(origin));
  for (const [index, { edit, origin, before }] of found.entries()) {
    if (edit.content !== null) await files.write(files.key(edit.file), edit.content);
    entries.push({ id: index + 1, path: edit.file, origin, before, after: edit.content });
  }
  return new ChangeLog(entries);
}

/**
 * The turns after the first message of a continued session's edit mode: for each follow-up,
 * the model's last words before it, then the message; the last message says how the work
 * before it ended and what the session has changed so far.
 *
 * @example
 * messages.push(...continuedTurns(record.conversation, changes.changes()));
 */
export function continuedTurns(conversation: readonly ComposerExchange[], changes: readonly AgentChangeSummary[]): ChatMessage[] {
  return conversation.flatMap((exchange, index): ChatMessage[] => [
    { role: 'assistant', content: exchange.earlier.summary ?? '(I ended without a summary.)' },
    {
      role: 'user',
      content:
        index < conversation.length - 1
          ? exchange.message
          : followUpMessage(exchange.message, {
              reason: exchange.earlier.status === 'completed' ? 'done' : exchange.earlier.status === 'cancelled' ? 'cancelled' : null,
              ...(exchange.earlier.status === 'failed' && exchange.earlier.error ? { failure: exchange.earlier.error } : {}),
              reverted: false,
              changes,
            }),
    },
  ]);
}

/**
 * The turns after a plan's first question when the plan is continued: each plan the model
 * gave, then the user's message on it, asking for the whole plan again.
 *
 * @example messages.push(...continuedPlanTurns(record.conversation));
 */
export function continuedPlanTurns(conversation: readonly ComposerExchange[]): ChatMessage[] {
  return conversation.flatMap((exchange): ChatMessage[] => [
    { role: 'assistant', content: exchange.earlier.plan ? JSON.stringify(exchange.earlier.plan) : (exchange.earlier.summary ?? '(no plan)') },
    {
      role: 'user',
      content: [
        "The user's message on your plan:",
        exchange.message.trim(),
        '',
        'Answer with the whole plan again, changed as the message asks, as the same JSON object.',
      ].join('\n'),
    },
  ]);
}
