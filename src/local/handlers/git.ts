// The workspace's repository: status, branches, commit, push and pull. A commit emits
// git:commit (queued for webhooks before the answer) with the commit as its data; push and pull
// stop git when the client goes away.
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function gitHandlers({ git, events }: LocalServices): LocalHandlersOf<'Git'> {
  return {
    getGitStatus: async () => git.status(),
    listBranches: async () => git.branches(),
    commit: async ({ body }) => {
      const made = await git.commit(body);
      await events.emit('git:commit', { ...made });
      return made;
    },
    push: async ({ body }, { signal }) => git.push(body, { signal }),
    pull: async ({ body }, { signal }) => git.pull(body, { signal }),
  };
}
