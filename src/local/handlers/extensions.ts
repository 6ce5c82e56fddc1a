// Extensions' commands, the extensions themselves, trusting the workspace to run its own, and
// writing their files (the signed-in window only: the route's access, enforced by the guard).
import { LoomError } from '../../core/errors.ts';
import type { LocalAppParts, LocalHandlersOf, LocalServices } from './index.ts';

export function extensionHandlers({ extensions, paths }: LocalServices, { terminals }: Pick<LocalAppParts, 'terminals'>): LocalHandlersOf<'Extensions'> {
  return {
    listCommands: async () => ({ commands: extensions.commands() }),
    runCommand: async ({ params, body }) => ({ result: (await extensions.run(params.name, body.args ?? [])) ?? null }),
    listExtensions: async () => extensions.list(),
    restartExtension: async ({ params }) => extensions.restart(params.name),
    reloadExtensions: async () => extensions.reload(),
    trustWorkspace: async ({ body }) => {
      const list = await extensions.setWorkspaceTrust(body.trusted ?? true);
      // A terminal runs code only in a trusted workspace: that holds for the ones already open too.
      await terminals.closeUnlessTrusted();
      return list;
    },
    writeExtensionFile: async ({ body }) => {
      if (!extensions.workspaceTrusted) {
        throw new LoomError(
          'workspace_untrusted',
          "The workspace's extensions are code it runs once trusted, and this workspace is not trusted.",
          'Trust the workspace first (the window, or loom extension trust), then edit its extensions.',
        );
      }
      const real = paths.writeExtensionFile(body.path, body.text);
      return { path: paths.relative(real), bytes: Buffer.byteLength(body.text) };
    },
  };
}
