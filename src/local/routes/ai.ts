// POST /api/ai/complete: AI completion for the desktop app, on the engine the hosted tab
// completion uses. How `prompt` and `context` become a cursor is core/completion/prompt-rule.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { LanguageId } from '../../contracts/schemas.ts';
import type { CompletionEngine } from '../../core/completion/engine.ts';
import { cursorFromPrompt, type PromptMode } from '../../core/completion/prompt-rule.ts';
import type { EventBus } from '../../core/events/bus.ts';
import { clientGone } from '../../http/client-gone.ts';

const AiCompleteRequest = Type.Object(
  {
    prompt: Type.String({ maxLength: 1_000_000, description: 'The text to continue (or, with a chat-capable model, an instruction).' }),
    language: LanguageId,
    context: Type.Optional(Type.String({ maxLength: 16 * 1024 * 1024, description: "The file's content." })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mode: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('continue'), Type.Literal('instruct')])),
    filePath: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
  },
  { additionalProperties: false },
);

interface AiCompleteBody {
  prompt: string;
  language: string;
  context?: string;
  model?: string;
  mode?: PromptMode;
  filePath?: string;
  maxTokens?: number;
}

/** The desktop app has one user; its requests share one type-ahead cache. */
const DESKTOP_CALLER = 'desktop';

export function registerAiRoutes(app: FastifyInstance, engine: CompletionEngine, bus: EventBus): void {
  // Completion has its own, smaller budget (60 a minute by default).
  app.post<{ Body: AiCompleteBody }>('/api/ai/complete', { schema: { body: AiCompleteRequest }, config: { limit: 'aiComplete' } }, async (request, reply) => {
    const body = request.body;
    const provider = engine.providers.select(body.model);
    const cursor = cursorFromPrompt({ prompt: body.prompt, context: body.context ?? '', mode: body.mode ?? 'auto', chat: provider.capabilities.chat });
    const result = await engine.complete({
      ...cursor,
      language: body.language,
      filePath: body.filePath,
      model: provider.name,
      maxTokens: body.maxTokens,
      caller: DESKTOP_CALLER,
      signal: clientGone(reply),
    });
    await bus.emit('ai:complete', {
      language: body.language,
      model: result.model,
      mode: cursor.mode,
      ...(body.filePath ? { filePath: body.filePath } : {}),
      tokens: result.tokens,
      characters: result.completion.length,
      latencyMs: result.latencyMs,
      cached: result.cached,
    });
    return { completion: result.completion, tokens: result.tokens, model: result.model, latencyMs: result.latencyMs };
  });
}
