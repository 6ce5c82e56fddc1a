// /api/git/*: status, branches, commit, push and pull on the workspace's repository. A commit
// emits git:commit (after it is queued for webhooks) with the commit as its data.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { EventBus } from '../../core/events/bus.ts';
import type { GitWorkspace } from '../../core/git/index.ts';

const Ref = Type.String({ minLength: 1, maxLength: 255 });
// All optional: no body at all means {} (src/http/validation.ts).
const SyncBody = Type.Object({ remote: Type.Optional(Ref), branch: Type.Optional(Ref) }, { additionalProperties: false });

export function registerGitRoutes(app: FastifyInstance, git: GitWorkspace, bus: EventBus): void {
  app.get('/api/git/status', async () => git.status());
  app.get('/api/git/branches', async () => git.branches());

  app.post<{ Body: { message: string; files?: string[] } }>(
    '/api/git/commit',
    {
      schema: {
        body: Type.Object(
          {
            message: Type.String({ minLength: 1, maxLength: 10_000 }),
            files: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 10_000 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const commit = await git.commit(request.body);
      await bus.emit('git:commit', { ...commit });
      return commit;
    },
  );

  app.post<{ Body: { remote?: string; branch?: string } }>('/api/git/push', { schema: { body: SyncBody } }, async (request) => git.push(request.body));
  app.post<{ Body: { remote?: string; branch?: string } }>('/api/git/pull', { schema: { body: SyncBody } }, async (request) => git.pull(request.body));
}
