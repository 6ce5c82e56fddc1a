// /api/editor/*: the active file, edits, opening and saving documents.
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
    const { path, language, lineCount, cursorLine, cursor, version, dirty } = documents.active();
    return { path, language, lineCount, cursorLine, cursor, version, dirty };
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

  app.post<{ Body: { path?: string } | undefined }>(
    '/api/editor/save',
    { schema: { body: Type.Optional(Type.Object({ path: Type.Optional(Path) }, { additionalProperties: false })) } },
    async (request) => documents.save(request.body?.path),
  );
}
