// The window's composer sessions (docs/composer.md, "In the window"): the hosted API's sessions
// as the machine's owner, listed, started, read, followed, cancelled, and applied to the
// workspace. Applying is editing the workspace (no code runs), so the routes take the token like
// the editor's: the edits go through the workspace's gate, all or nothing, refused when a file
// is not as the session found it or holds unsaved edits, and the open documents take the result.
import { composerSessionView } from '../../core/composer/view.ts';
import { LoomError } from '../../core/errors.ts';
import { applyComposerEdits } from '../../core/workspace/composer-edits.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

/** Events per page of listComposerEvents. */
const EVENTS_PER_PAGE = 200;
/** Characters of a prompt in the list. */
const PROMPT_PREVIEW = 500;

export function composerHandlers({ composer, documents, paths, events }: LocalServices): LocalHandlersOf<'Composer'> {
  return {
    listComposerSessions: async ({ query }) => {
      const sessions = await composer.current.list(query.limit ?? 50);
      return {
        sessions: sessions.map((session) => ({
          sessionId: session.id,
          status: session.status,
          mode: session.mode,
          prompt: session.prompt.slice(0, PROMPT_PREVIEW),
          edits: session.edits?.length ?? 0,
          error: composerSessionView(session).error,
          createdAt: session.createdAt,
          endedAt: session.endedAt,
        })),
      };
    },

    startComposerSession: async ({ body }) => {
      const started = await composer.current.create(body);
      await events.emit('composer:status', { sessionId: started.sessionId, status: started.status });
      // The first event (queued) is told above; the follower tells the rest.
      composer.follow(started.sessionId, { after: 1 });
      return started;
    },

    getComposerSession: async ({ params }) => composerSessionView(await composer.current.get(params.sessionId)),

    listComposerEvents: async ({ params, query }) => ({
      events: await composer.current.events(params.sessionId, query.after ?? 0, EVENTS_PER_PAGE),
    }),

    cancelComposerSession: async ({ params }) => composerSessionView(await composer.current.cancel(params.sessionId)),

    continueComposerSession: async ({ params, body }) => {
      // Its events from the message on are new: the follower tells them, the queued status first.
      const since = new Date().toISOString();
      const session = await composer.current.continue(params.sessionId, body);
      composer.follow(params.sessionId, { since });
      return composerSessionView(session);
    },

    applyComposerSession: async ({ params, body }) => {
      const session = await composer.current.get(params.sessionId);
      if (session.mode === 'plan') throw new LoomError('apply_refused', 'This is a plan session: it has a plan, not edits to apply.', 'Start an edit session.');
      if (session.status === 'queued' || session.status === 'running') {
        throw new LoomError(
          'apply_refused',
          `The session is still ${session.status}; apply it once it has completed.`,
          'Wait for composer:status, or cancel it.',
        );
      }
      if (session.status !== 'completed' && body?.partial !== true) {
        throw new LoomError('apply_refused', `The session ended ${session.status}, so its edits may be half done: apply them anyway with partial: true.`);
      }
      const dryRun = body?.dryRun === true;
      const edits = session.edits ?? [];
      // Checked and written in one synchronous step: no other request changes a file in between.
      const applied = applyComposerEdits(paths, edits, { dryRun, unsaved: (file) => documents.openState(file)?.dirty === true });
      if (!dryRun) {
        for (const edit of edits) {
          if (edit.action === 'deleted') documents.closeRemoved(edit.file);
          else if (edit.action === 'renamed' && edit.from !== undefined) documents.closeRemoved(edit.from);
          // An open document takes the new text now and says so (file:open, reloaded) before the answer.
          if (edit.action !== 'deleted') await documents.noticeDiskChange(paths.relative(paths.resolve(edit.file)));
        }
        await events.emit('composer:apply', { sessionId: session.id, files: applied.map((edit) => edit.file) });
      }
      return { sessionId: session.id, dryRun, edits: applied };
    },
  };
}
