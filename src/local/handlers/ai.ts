// AI completion for the desktop app, on the engine the hosted tab completion uses. How
// `prompt` and `context` become a cursor is core/completion/prompt-rule.ts.
import { cursorFromPrompt } from '../../core/completion/prompt-rule.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

/** The desktop app has one user; its requests share one type-ahead cache. */
const DESKTOP_CALLER = 'desktop';

export function aiHandlers({ completion, events }: LocalServices): LocalHandlersOf<'AI'> {
  return {
    completeCode: async ({ body }, { signal }) => {
      const provider = completion.providers.select(body.model);
      const cursor = cursorFromPrompt({
        prompt: body.prompt,
        context: body.context ?? '',
        suffix: body.suffix,
        mode: body.mode ?? 'auto',
        chat: provider.capabilities.chat,
      });
      const result = await completion.complete({
        ...cursor,
        language: body.language,
        filePath: body.filePath,
        model: provider.name,
        maxTokens: body.maxTokens,
        caller: DESKTOP_CALLER,
        signal,
      });
      // The engine ends a call whose caller went away with an empty completion; no one asked for it any more.
      signal.throwIfAborted();
      await events.emit('ai:complete', {
        language: body.language,
        model: result.model,
        mode: cursor.mode,
        ...(body.filePath ? { filePath: body.filePath } : {}),
        tokens: result.tokens,
        characters: result.completion.length + (result.continuation?.text.length ?? 0),
        latencyMs: result.latencyMs,
        cached: result.cached,
      });
      return {
        completion: result.completion,
        ...(result.continuation && { continuation: result.continuation }),
        tokens: result.tokens,
        model: result.model,
        latencyMs: result.latencyMs,
      };
    },
  };
}
