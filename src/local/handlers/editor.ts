// The editor's documents: the active one, opening, editing, saving, reloading and closing.
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function editorHandlers({ documents }: LocalServices): LocalHandlersOf<'Editor'> {
  return {
    getActiveFile: async () => {
      const { path, language, lineCount, cursorLine, cursor, version, dirty, conflict, readOnly } = documents.active();
      return { path, language, lineCount, cursorLine, cursor, version, dirty, conflict, readOnly };
    },
    listDocuments: async () => ({ documents: documents.list() }),
    getText: async ({ query }) => documents.text(query.path),
    openDocument: async ({ body }) => documents.openFile(body.path),
    insertText: async ({ body }) => documents.insert(body),
    replaceText: async ({ body }) => documents.replace(body),
    saveDocument: async ({ body }) => documents.save(body.path, { overwrite: body.overwrite }),
    reloadDocument: async ({ body }) => documents.reload(body.path),
    moveCursor: async ({ body }) => documents.moveCursor(body),
    closeDocument: async ({ body }) => documents.close(body.path, { discard: body.discard }),
  };
}
