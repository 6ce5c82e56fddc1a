// Creating, renaming and deleting the workspace's files and folders: the core's FileOperations
// (the workspace's gate, the open documents following, the events) behind the local API, so
// the window's file tree, scripts and `loom mcp` make the same change the same way.
import { FileOperations } from '../../core/workspace/file-operations.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

/**
 * The Files routes.
 *
 * @example
 *   const handlers = fileHandlers(services);
 *   await handlers.createEntry({ params: undefined, query: undefined, body: { path: 'src/new.ts' } }, context);
 */
export function fileHandlers({ paths, documents, events }: LocalServices): LocalHandlersOf<'Files'> {
  const files = new FileOperations(paths, documents, events);
  return {
    createEntry: async ({ body }) => files.create(body.path, body.kind ?? 'file', body.text),
    renameEntry: async ({ body }) => files.rename(body.from, body.to),
    deleteEntry: async ({ body }) => files.remove(body.path, { discard: body.discard }),
  };
}
