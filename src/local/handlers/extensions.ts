// Extensions' commands, the extensions themselves, and trusting the workspace to run its own.
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function extensionHandlers({ extensions }: LocalServices): LocalHandlersOf<'Extensions'> {
  return {
    listCommands: async () => ({ commands: extensions.commands() }),
    runCommand: async ({ params, body }) => ({ result: (await extensions.run(params.name, body.args ?? [])) ?? null }),
    listExtensions: async () => extensions.list(),
    restartExtension: async ({ params }) => extensions.restart(params.name),
    reloadExtensions: async () => extensions.reload(),
    trustWorkspace: async ({ body }) => extensions.setWorkspaceTrust(body.trusted ?? true),
  };
}
