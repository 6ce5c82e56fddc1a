// A composer session as the APIs show it: the hosted API's getComposerSession and the desktop
// app's local composer routes answer the same object. The runner's claim and the attachments
// stay inside.
import type { ComposerSession } from '../../contracts/composer.ts';
import { hidePrivatePaths } from '../files/private-folders.ts';
import type { ComposerSessionRecord } from './types.ts';

/**
 * The session as the APIs show it.
 *
 * @example
 * const session = composerSessionView(await composer.get(userId, sessionId)); // { sessionId, status, edits, … }
 */
export function composerSessionView(record: ComposerSessionRecord): ComposerSession {
  return {
    sessionId: record.id,
    status: record.status,
    mode: record.mode,
    prompt: record.prompt,
    files: record.files,
    workspace: record.workspace,
    plan: record.plan,
    edits: record.edits ?? [],
    messages: record.conversation.map((exchange) => ({ message: exchange.message, at: exchange.at, after: exchange.earlier.status, seq: exchange.seq })),
    base: record.base,
    branch: record.branch,
    commit: record.commit,
    pushed: record.pushed,
    // Hidden when it ends too; again here for sessions that ended before that was so.
    error: record.error === null ? null : hidePrivatePaths(record.error),
    summary: record.summary,
    model: record.model,
    steps: record.steps,
    tokens: record.tokens,
    budgets: record.budgets,
    cancelRequested: record.cancelRequested,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
  };
}
