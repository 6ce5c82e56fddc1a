// /api/editor/*: the active file, edits, opening, saving, reloading and closing documents.
// Bodies whose fields are all optional may be left out (src/http/validation.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Documents } from '../../core/workspace/documents.ts';

const Path = Type.String({ minLength: 1, maxLength: 4096, description: 'Path relative to the workspace.' });
const Line = Type.Integer({ minimum: 1, description: '1-based line.' });
const Column = Type.Integer({ minimum: 1, description: '1-based column, in UTF-16 code units.' });
/** Edits carry at most this much text (a paste of a large file still fits). */
const EditText = Type.String({ maxLength: 16 * 1024 * 1024 });

export function registerEditorRoutes(app: FastifyInstance, documents: Documents): void {
  app.get('/api/editor/file', async () => {
    const { path, language, lineCount, cursorLine, cursor, version, dirty, conflict, readOnly } = documents.active();
    return { path, language, lineCount, cursorLine, cursor, version, dirty, conflict, readOnly };
  });

  app.get('/api/editor/documents', async () => ({ documents: documents.list() }));

  app.get<{ Querystring: { path?: string } }>(
    '/api/editor/text',
    { schema: { querystring: Type.Object({ path: Type.Optional(Path) }) } },
    async (request) => documents.text(request.query.path),
  );

  app.post<{ Body: { path: string } }>(
    '/api/editor/open',
    { schema: { body: Type.Object({ path: Path }, { additionalProperties: false }) } },
    async (request) => documents.openFile(request.body.path),
  );

  app.post<{ Body: { text: string; line?: number; column?: number; path?: string } }>(
    '/api/editor/insert',
    {
      schema: {
        body: Type.Object({ text: EditText, line: Type.Optional(Line), column: Type.Optional(Column), path: Type.Optional(Path) }, { additionalProperties: false }),
      },
    },
    async (request) => documents.insert(request.body),
  );

  app.post<{ Body: { text: string; startLine: number; startColumn: number; endLine: number; endColumn: number; path?: string } }>(
    '/api/editor/replace',
    {
      schema: {
        body: Type.Object(
          { text: EditText, startLine: Line, startColumn: Column, endLine: Line, endColumn: Column, path: Type.Optional(Path) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => documents.replace(request.body),
  );

  app.post<{ Body: { path?: string; overwrite?: boolean } }>(
    '/api/editor/save',
    {
      schema: {
        body: Type.Object(
          { path: Type.Optional(Path), overwrite: Type.Optional(Type.Boolean({ description: 'Replace a change made on disk since the document was loaded (else 409 EDIT_CONFLICT).' })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => documents.save(request.body.path, { overwrite: request.body.overwrite }),
  );

  app.post<{ Body: { path?: string } }>(
    '/api/editor/reload',
    { schema: { body: Type.Object({ path: Type.Optional(Path) }, { additionalProperties: false }) } },
    async (request) => documents.reload(request.body.path),
  );

  app.post<{ Body: { path?: string; discard?: boolean } }>(
    '/api/editor/close',
    {
      schema: {
        body: Type.Object(
          { path: Type.Optional(Path), discard: Type.Optional(Type.Boolean({ description: 'Close even with unsaved edits, dropping them (else 409 UNSAVED_CHANGES).' })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => documents.close(request.body.path, { discard: request.body.discard }),
  );
}
