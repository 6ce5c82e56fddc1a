// The resources of the local API's code intelligence routes (the `Code` tag of local-routes.ts):
// the code index's status and searches, locate and the repository map, and what the language
// servers answer (definition, references, hover, diagnostics, rename). Positions are Loom's
// everywhere: 1-based lines and 1-based columns in UTF-16 code units, ranges end-exclusive, as in
// the editor's routes (`Position`); paths are relative to the workspace.
import { Type, type Static } from 'typebox';
import { Position } from './local-resources.ts';
import { StringEnum } from './schema-helpers.ts';

const WorkspacePath = Type.String({ minLength: 1, maxLength: 4096, description: 'A file, relative to the workspace.' });
const Count = Type.Integer({ minimum: 0 });

export const CodeRange = Type.Object(
  { start: Position, end: Position },
  { title: 'CodeRange', description: '`start` inclusive, `end` exclusive; 1-based lines and columns (UTF-16 code units).' },
);

/** Which text a query sees: `disk` (the files as saved: what agents and the CLI see) or `editor` (documents with unsaved edits count with their unsaved text). */
const View = StringEnum(['disk', 'editor'] as const, {
  description:
    '`disk`: the files as saved (what agents and the CLI see); `editor`: open documents with unsaved edits count with their unsaved text. `disk` by default.',
});

// ---- the index's status ----------------------------------------------------------------------

const IndexProgress = Type.Object(
  {
    phase: StringEnum(['walking', 'indexing', 'done', 'failed'] as const),
    files: Type.Integer({ description: 'Files found so far (the total once `walked`).' }),
    done: Type.Integer({ description: 'Files brought up to date so far.' }),
    parsed: Type.Integer({ description: 'Files parsed by this build (not found in the cache).' }),
    skipped: Type.Integer({ description: 'Files and folders skipped, with a reason.' }),
    bytes: Type.Integer({ description: 'Bytes read by this build.' }),
    walked: Type.Boolean({ description: 'The walk is over: `files` is the total.' }),
    elapsedMs: Type.Number(),
  },
  { title: 'IndexProgress' },
);

const BuildSummary = Type.Object(
  {
    startedAt: Type.String({ description: 'ISO 8601.' }),
    durationMs: Type.Number(),
    files: Type.Integer(),
    parsed: Type.Integer({ description: 'Files parsed (content not in the cache).' }),
    reused: Type.Integer({ description: 'Files whose content was found in the cache (another checkout, a branch switched back).' }),
    unchanged: Type.Integer({ description: 'Files whose size, time and inode were unchanged: not read.' }),
    removed: Type.Integer(),
    skipped: Type.Integer(),
    bytes: Type.Integer(),
  },
  { title: 'IndexBuildSummary' },
);

export const CodeIndexStatusQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Skipped files listed at most; 100 by default.' })),
});

const LanguageServerState = Type.Object(
  {
    server: Type.String({ description: '`typescript`, `python`, or the key of its settings.json entry.' }),
    languages: Type.Array(Type.String()),
    origin: StringEnum(['bundled', 'settings', 'path'] as const),
    state: StringEnum(['stopped', 'starting', 'running', 'restarting', 'unavailable'] as const),
    mode: Type.Optional(
      StringEnum(['full', 'restricted'] as const, {
        description: '`restricted`: started with the features that run workspace code off (an untrusted workspace).',
      }),
    ),
    pid: Type.Optional(Type.Integer()),
    rssBytes: Type.Optional(Type.Integer({ description: 'Resident memory of the server and its children, at the last look.' })),
    restarts: Type.Integer(),
    reason: Type.Optional(Type.String({ description: 'Why it is unavailable, or why it was last restarted.' })),
  },
  { title: 'LanguageServerState' },
);

export const CodeIndexStatus = Type.Object(
  {
    index: Type.Object(
      {
        state: StringEnum(['empty', 'building', 'ready', 'failed'] as const, {
          description: '`empty`: never built; `building`: a build runs (queries answer from what is indexed so far); `ready`; `failed` (`error` says why).',
        }),
        workspace: Type.String(),
        database: Type.String({ description: 'The SQLite file the index is kept in (in the data dir).' }),
        files: Count,
        parsed: Type.Integer({ description: 'Files parsed with tree-sitter.' }),
        lexical: Type.Integer({ description: 'Files indexed as text only.' }),
        skipped: Type.Integer({ description: 'Files and folders left out (listed in `skipped`, with the reason).' }),
        progress: Type.Optional(IndexProgress),
        lastBuild: Type.Optional(BuildSummary),
        error: Type.Optional(Type.String()),
      },
      { title: 'IndexState' },
    ),
    skipped: Type.Array(
      Type.Object({
        path: Type.String(),
        reason: Type.String({ description: 'A key: `too-large`, `binary`, `minified`, `parse-timeout`, `symlink-loop`, `file-limit`, …' }),
        why: Type.String({ description: 'The reason in words.' }),
      }),
      { description: 'What the index left out, at most `limit`.' },
    ),
    languageServers: Type.Array(LanguageServerState, { description: 'Every language server this workspace could use, and its state.' }),
  },
  { title: 'CodeIndexStatus' },
);
export type CodeIndexStatus = Static<typeof CodeIndexStatus>;

// ---- files and symbols -----------------------------------------------------------------------

const Query = Type.String({ maxLength: 1000, description: 'Fuzzy: the characters in order (a space separates terms that must all match).' });
const Limit = (fallback: number, maximum: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum, description: `At most this many; ${fallback} by default.` }));

export const CodeFilesQuery = Type.Object({ query: Query, limit: Limit(50, 1000) });

export const CodeFiles = Type.Object(
  {
    files: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          score: Type.Number({ description: 'Higher is better.' }),
          positions: Type.Array(Type.Integer(), { description: 'Matched UTF-16 indices in `path`, for highlighting.' }),
          state: StringEnum(['parsed', 'lexical', 'skipped'] as const),
          language: Type.String({ description: 'The parsed language, or `text`.' }),
        },
        { title: 'FileHit' },
      ),
      { description: 'Best first; an empty query lists files in path order.' },
    ),
  },
  { title: 'CodeFiles' },
);

export const CodePaths = Type.Object(
  {
    paths: Type.Array(Type.String(), {
      description:
        "Every file the index lists, in path order (at most the index's file limit, `codeIndex.maxFiles`). Empty while the index is off or not built yet.",
    }),
  },
  { title: 'CodePaths' },
);

export const CodeSymbolsQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 1000, description: 'Part of a name, fuzzy. Empty with `path`: every definition of the file, in order.' })),
  path: Type.Optional(Type.String({ maxLength: 4096, description: "A workspace-relative file: its definitions only (the editor's Ctrl+Shift+O)." })),
  kinds: Type.Optional(
    Type.Array(Type.String({ maxLength: 32 }), {
      maxItems: 20,
      description:
        'Kinds to keep (repeat the parameter): module, namespace, class, interface, trait, struct, enum, enumMember, type, function, method, constructor, property, field, variable, constant, macro.',
    }),
  ),
  limit: Limit(50, 1000),
  view: Type.Optional(View),
});

export const CodeSymbols = Type.Object(
  {
    symbols: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          kind: Type.String({ description: "LSP's kinds in words (`class`, `function`, …), `type` for type aliases." }),
          path: Type.String(),
          range: CodeRange,
          nameRange: CodeRange,
          container: Type.Optional(Type.String({ description: 'The definition it is in (a method’s class).' })),
          signature: Type.String({ description: 'Its first line, trimmed.' }),
          doc: Type.Optional(Type.String({ description: 'Its doc comment, without the markers.' })),
          score: Type.Number(),
          positions: Type.Array(Type.Integer(), { description: 'Matched UTF-16 indices in `name`.' }),
        },
        { title: 'SymbolHit' },
      ),
    ),
  },
  { title: 'CodeSymbols' },
);
export type CodeSymbols = Static<typeof CodeSymbols>;

// ---- text search -----------------------------------------------------------------------------

const Globs = (description: string) => Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100, description }));

/** What to find: the fields a text search and a replace share. */
const textQueryFields = {
  pattern: Type.String({ minLength: 1, maxLength: 1000, description: 'The text to find, or an RE2 regular expression with `regex`.' }),
  regex: Type.Optional(Type.Boolean({ description: '`pattern` is a regular expression (RE2: no lookaround, no backreferences); false by default.' })),
  case: Type.Optional(
    StringEnum(['smart', 'sensitive', 'insensitive'] as const, {
      description: '`smart` (the default): case-sensitive only when the pattern has a capital letter.',
    }),
  ),
  wholeWord: Type.Optional(Type.Boolean({ description: 'Only matches with no letter, digit or `_` right before or after them.' })),
  include: Globs('Globs a file must match one of (gitignore syntax, `{a,b}` too): `*.ts`, `src/**` (repeat the parameter).'),
  exclude: Globs('Globs that leave a file out (repeat the parameter).'),
};
const TimeoutMs = Type.Optional(Type.Integer({ minimum: 1, maximum: 30_000, description: 'Time the search may take; 10,000 ms by default.' }));

export const CodeTextSearchQuery = Type.Object({
  ...textQueryFields,
  maxMatches: Limit(500, 10_000),
  maxMatchesPerFile: Limit(100, 1000),
  timeoutMs: TimeoutMs,
  view: Type.Optional(View),
});

export const CodeTextSearch = Type.Object(
  {
    matches: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          line: Type.Integer({ description: '1-based.' }),
          preview: Type.String({ description: "The line's text, cut to 400 characters around the first match." }),
          previewColumn: Type.Integer({ description: "The column (1-based) of `preview`'s first character in the line." }),
          matches: Type.Array(Type.Object({ column: Type.Integer(), endColumn: Type.Integer({ description: 'Exclusive.' }) }), {
            description: 'The matches in the line, 1-based columns.',
          }),
        },
        { title: 'TextMatch' },
      ),
      { description: 'Matching lines, file by file in path order.' },
    ),
    files: Type.Integer({ description: 'Files searched.' }),
    matchCount: Type.Integer({ description: 'Matches reported.' }),
    skipped: Type.Integer({ description: 'Files not searched: binary, too large, unreadable.' }),
    truncated: Type.Optional(
      StringEnum(['matches', 'time', 'aborted'] as const, {
        description: 'Why the search stopped early: `maxMatches` reached, `timeoutMs` spent, the client left.',
      }),
    ),
    elapsedMs: Type.Number(),
  },
  { title: 'CodeTextSearch' },
);

export const CodeRankedSearchQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 2000, description: 'Words and identifiers (camelCase and snake_case are split).' }),
  limit: Limit(20, 200),
});

export const CodeRankedSearch = Type.Object(
  {
    hits: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          startLine: Type.Integer({ description: "The chunk's first line (1-based)." }),
          endLine: Type.Integer({ description: 'Its last line (inclusive).' }),
          score: Type.Number({ description: 'Higher is better (BM25, with a bonus for query terms in the path).' }),
          symbols: Type.Array(Type.String(), { description: 'Names defined in the chunk.' }),
        },
        { title: 'RankedHit' },
      ),
    ),
  },
  { title: 'CodeRankedSearch' },
);

// ---- locate and the map ----------------------------------------------------------------------

const Task = (minLength: number) =>
  Type.String({
    minLength,
    maxLength: 100_000,
    description: 'The task in words: an issue, a commit message, a request (its first 20,000 characters are read).',
  });
const History = Type.Optional(
  Type.Boolean({ description: "Use the workspace's git history (recently and often changed files, files changed together); true by default." }),
);

export const CodeLocateRequest = Type.Object(
  { task: Task(1), limit: Limit(10, 1000), history: History },
  { additionalProperties: false, title: 'CodeLocateRequest' },
);

export const CodeLocate = Type.Object(
  {
    files: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          score: Type.Number({ description: 'Comparable within one answer, not across tasks.' }),
          reasons: Type.Array(Type.String(), { description: 'Why, strongest first.' }),
        },
        { title: 'LocatedFile' },
      ),
      { description: 'Best first.' },
    ),
  },
  { title: 'CodeLocate' },
);

export const CodeMapRequest = Type.Object(
  {
    task: Type.Optional(Task(0)),
    focus: Type.Optional(
      Type.Array(Type.String({ maxLength: 4096 }), {
        maxItems: 200,
        description: 'Workspace-relative files being worked on, shown first; ones the index does not hold are left out.',
      }),
    ),
    tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The budget, in estimated tokens; 1,024 by default.' })),
    history: History,
  },
  { additionalProperties: false, title: 'CodeMapRequest' },
);

export const CodeMap = Type.Object(
  {
    text: Type.String({ description: 'The map: each file, then its key definitions’ first lines, numbered by line.' }),
    tokens: Type.Integer({ description: 'Its estimated tokens (never over the budget).' }),
    files: Type.Array(Type.String(), { description: 'The files shown, in order.' }),
  },
  { title: 'CodeMap' },
);

// ---- language servers ------------------------------------------------------------------------

const positionFields = {
  path: WorkspacePath,
  line: Type.Integer({ minimum: 1, description: '1-based line.' }),
  column: Type.Integer({ minimum: 1, description: '1-based column, in UTF-16 code units.' }),
};

export const CodePositionQuery = Type.Object(positionFields);

export const CodeReferencesQuery = Type.Object({
  ...positionFields,
  includeDeclaration: Type.Optional(Type.Boolean({ description: 'List the declaration too; true by default.' })),
});

export const CodeNavigation = Type.Object(
  {
    source: StringEnum(['language-server', 'index'] as const, {
      description:
        '`index`: no language server runs for the language here, and the code index answered by name (every definition or use of the name under the cursor), not by type.',
    }),
    server: Type.Optional(Type.String({ description: 'The language server that answered.' })),
    locations: Type.Array(
      Type.Object(
        {
          path: Type.Union([Type.String(), Type.Null()], { description: 'Workspace-relative; null for a file outside the workspace (a library, lib.d.ts).' }),
          uri: Type.String(),
          range: CodeRange,
        },
        { title: 'CodeLocation' },
      ),
    ),
  },
  { title: 'CodeNavigation' },
);
export type CodeNavigation = Static<typeof CodeNavigation>;

export const CodeHover = Type.Object(
  {
    markdown: Type.Union([Type.String(), Type.Null()], {
      description: 'What the server says about the symbol (its type, its documentation); null for nothing.',
    }),
    range: Type.Optional(CodeRange),
  },
  { title: 'CodeHover' },
);
export type CodeHover = Static<typeof CodeHover>;

const Diagnostic = Type.Object(
  {
    range: CodeRange,
    severity: StringEnum(['error', 'warning', 'information', 'hint'] as const),
    message: Type.String(),
    source: Type.Optional(Type.String({ description: 'Who found it: `ts`, `Pyright`, …' })),
    code: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(StringEnum(['unnecessary', 'deprecated'] as const))),
  },
  { title: 'Diagnostic' },
);

const fileDiagnosticsFields = {
  path: Type.String(),
  server: Type.String({ description: 'The server that reported them; empty when none has.' }),
  diagnostics: Type.Array(Diagnostic, { description: 'At most 500.' }),
  omitted: Type.Integer({ description: 'Diagnostics reported beyond those kept.' }),
};

export const CodeDiagnosticsQuery = Type.Object({
  path: WorkspacePath,
  fresh: Type.Optional(
    Type.Boolean({
      description:
        "true (the default): the server is given the file's text now (the editor's document, else the disk) and its report for it is waited for; false: what it last reported, at once.",
    }),
  ),
});

export const CodeFileDiagnostics = Type.Object(
  {
    ...fileDiagnosticsFields,
    current: Type.Optional(
      Type.Boolean({ description: 'With `fresh`: false when the server said nothing within its time limit (what it said before stands).' }),
    ),
  },
  { title: 'CodeFileDiagnostics' },
);
export type CodeFileDiagnostics = Static<typeof CodeFileDiagnostics>;

export const CodeProblems = Type.Object(
  {
    files: Type.Array(Type.Object(fileDiagnosticsFields, { title: 'FileDiagnostics' }), { description: 'Every file with diagnostics, errors first.' }),
    counts: Type.Object({ error: Count, warning: Count, information: Count, hint: Count }),
  },
  { title: 'CodeProblems' },
);
export type CodeProblems = Static<typeof CodeProblems>;

export const CodeRenameRequest = Type.Object(
  {
    ...positionFields,
    newName: Type.String({ minLength: 1, maxLength: 1000, description: 'The new name, on one line.' }),
  },
  { additionalProperties: false, title: 'CodeRenameRequest' },
);

const TextEdit = Type.Object(
  { range: CodeRange, newText: Type.String({ maxLength: 1024 * 1024 }) },
  { additionalProperties: false, title: 'TextEdit', description: 'The range as the text is before any edit of the file.' },
);

const EditBase = Type.Object(
  {
    kind: StringEnum(['document', 'disk'] as const, {
      description: '`document`: an open document at `version`; `disk`: the file on disk with the SHA-256 `sha256` of its text.',
    }),
    version: Type.Optional(Type.Integer({ minimum: 0 })),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  },
  { additionalProperties: false, title: 'EditBase' },
);

const FileEditPreview = Type.Object(
  {
    path: WorkspacePath,
    base: EditBase,
    edits: Type.Array(TextEdit, { maxItems: 10_000 }),
    diff: Type.Optional(Type.String({ description: 'The unified diff the edits make (read-only: applying ignores it).' })),
  },
  { additionalProperties: false, title: 'FileEditPreview' },
);

export const CodeEditPreview = Type.Object(
  { files: Type.Array(FileEditPreview, { maxItems: 1000, description: 'Per file: its edits, what they were made against, the diff.' }) },
  { additionalProperties: false, title: 'CodeEditPreview' },
);
export type CodeEditPreview = Static<typeof CodeEditPreview>;

/** Where an applied edit went, per file: rename's and replace's answers. */
const appliedFileFields = {
  path: Type.String(),
  to: StringEnum(['document', 'disk'] as const, {
    description: '`document`: applied to the open document as edits (`file:change` events); `disk`: written to the file, which is not open.',
  }),
  version: Type.Optional(Type.Integer({ description: "The document's version after the edit." })),
};

export const CodeAppliedEdit = Type.Object(
  { files: Type.Array(Type.Object(appliedFileFields), { description: "Per file; an open document's edits are left unsaved, as the editor's are." }) },
  { title: 'CodeAppliedEdit' },
);
export type CodeAppliedEdit = Static<typeof CodeAppliedEdit>;

// ---- replace in files ------------------------------------------------------------------------

export const CodeReplaceRequest = Type.Object(
  {
    ...textQueryFields,
    include: Globs('Globs a file must match one of (gitignore syntax, `{a,b}` too): `*.ts`, `src/**`.'),
    exclude: Globs('Globs that leave a file out.'),
    replacement: Type.String({
      maxLength: 1000,
      description:
        'What replaces each match. With `regex`: `$1`…`$99`, `$&` (or `$0`) the whole match, `${name}` or `$<name>` a named group, `$$` a dollar sign, `\\n`, `\\t`, `\\\\`; a group the pattern does not have is 400. Without `regex`: the text as it is.',
    }),
    after: Type.Optional(Type.String({ maxLength: 4096, description: 'Paging: only files whose path sorts after this one (the `next` of the page before).' })),
    maxFiles: Limit(100, 1000),
    maxMatches: Limit(2000, 10_000),
    maxMatchesPerFile: Limit(1000, 10_000),
    timeoutMs: TimeoutMs,
  },
  { additionalProperties: false, title: 'CodeReplaceRequest' },
);

const ReplaceMatch = Type.Object(
  {
    line: Type.Integer({ description: '1-based.' }),
    column: Type.Integer({ description: '1-based, UTF-16 code units.' }),
    endColumn: Type.Integer({ description: 'Exclusive.' }),
    before: Type.String({ description: 'The text matched.' }),
    after: Type.String({ description: 'What replaces it.' }),
    preview: Type.String({ description: "The line's text before the edit, cut to 400 characters around the match." }),
    previewColumn: Type.Integer({ description: "The column (1-based) of `preview`'s first character in the line." }),
  },
  { title: 'ReplaceMatch' },
);

export const CodeReplacePreview = Type.Object(
  {
    files: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          base: EditBase,
          edits: Type.Array(TextEdit, { description: 'One per match, in the order of `matches`.' }),
          matches: Type.Array(ReplaceMatch),
          truncated: Type.Optional(
            Type.Boolean({ description: 'The file has more matches than `maxMatchesPerFile` (or the page had room for): replace again for the rest.' }),
          ),
        },
        { title: 'FileReplacePreview' },
      ),
      { description: 'Files with matches, in path order. Send `{ files: [{ path, base, edits }] }` (the edits kept) to `POST /api/code/replace/apply`.' },
    ),
    matchCount: Type.Integer({ description: 'Matches in `files`.' }),
    searched: Type.Integer({ description: 'Files searched.' }),
    skipped: Type.Integer({ description: 'Files not searched: binary, too large, unreadable.' }),
    unwritable: Type.Integer({ description: 'Files with matches left out because Loom does not write them (a protected path, a read-only document).' }),
    next: Type.Optional(Type.String({ description: 'More files may match: ask again with `after` set to this path.' })),
    truncated: Type.Optional(
      StringEnum(['time', 'aborted'] as const, {
        description: 'The search stopped early: `timeoutMs` spent (continue from `next`, when given), or the client left.',
      }),
    ),
    index: StringEnum(['empty', 'building', 'ready', 'failed'] as const, {
      description:
        "The code index's state: files are found through it, so `empty` (the index is off or not built) finds none and `building` only those indexed so far.",
    }),
    elapsedMs: Type.Number(),
  },
  { title: 'CodeReplacePreview' },
);
export type CodeReplacePreview = Static<typeof CodeReplacePreview>;
export type CodeReplaceRequest = Static<typeof CodeReplaceRequest>;

export const CodeReplaceApplied = Type.Object(
  {
    files: Type.Array(
      Type.Object({
        ...appliedFileFields,
        saved: Type.Boolean({
          description:
            'The file on disk holds the replacement: written (`disk`), or an open document without unsaved edits before, saved after. false: a document with unsaved edits keeps the replacement unsaved too.',
        }),
      }),
    ),
    edits: Type.Integer({ description: 'Edits applied.' }),
  },
  { title: 'CodeReplaceApplied' },
);
export type CodeReplaceApplied = Static<typeof CodeReplaceApplied>;
