// The code index's SQLite file, `code-index.db` in the data dir, beside Loom's store. It is a
// cache of this machine, rebuilt from the workspaces whenever it is lost, so it is opened with
// better-sqlite3 directly (not through Loom's Kysely store, which is the app's records and
// migrates), and it uses SQLite's FTS5 for the ranked search.
//
// Content is stored once per content key (a SHA-256 of the language and the bytes), whatever
// the workspace, path or branch: `blob` (imports, packed references), `symbol` (definitions),
// `chunk` and `chunk_text` (the ranked search's documents). `file` maps each workspace's paths
// to keys, with the size, times and inode last seen, so a file whose stat did not change is not
// read again, and content already seen (a branch switched back, a second checkout) is not parsed
// again. Content no file points to is dropped after KEEP_UNUSED_DAYS.
import SqliteDatabase from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { Definition, FileState, Import, IndexedLanguage, SkipReason, SymbolKind } from '../../core/code/model.ts';
import { createPrivateFile, ensurePrivateDir, type ModeWarning } from '../../core/files/private-files.ts';
import type { IndexedContent } from './index-content.ts';

/** The file's name in the data dir. */
export const INDEX_FILE = 'code-index.db';
/** Changes when the tables or what extraction writes into them change: an older file is rebuilt. */
const SCHEMA_VERSION = '2';
/** Content no file points to is kept this long (a branch switched back soon costs no parse). */
const KEEP_UNUSED_DAYS = 14;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE workspace (id INTEGER PRIMARY KEY, root TEXT NOT NULL UNIQUE, generation INTEGER NOT NULL DEFAULT 0);
CREATE TABLE file (
  workspace INTEGER NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  ctime REAL NOT NULL,
  inode INTEGER NOT NULL,
  hash BLOB,
  language TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  generation INTEGER NOT NULL,
  PRIMARY KEY (workspace, path)
) WITHOUT ROWID;
CREATE INDEX file_by_hash ON file (hash);
CREATE TABLE skip (
  workspace INTEGER NOT NULL,
  path TEXT NOT NULL,
  reason TEXT NOT NULL,
  generation INTEGER NOT NULL,
  PRIMARY KEY (workspace, path)
) WITHOUT ROWID;
CREATE TABLE blob (
  hash BLOB PRIMARY KEY,
  language TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  lines INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  syntax_errors INTEGER NOT NULL,
  imports TEXT NOT NULL,
  refs BLOB NOT NULL,
  ref_count INTEGER NOT NULL,
  used INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE symbol (
  hash BLOB NOT NULL,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  container TEXT,
  start_line INTEGER NOT NULL,
  start_col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  end_col INTEGER NOT NULL,
  name_line INTEGER NOT NULL,
  name_col INTEGER NOT NULL,
  name_end_line INTEGER NOT NULL,
  name_end_col INTEGER NOT NULL,
  signature TEXT NOT NULL,
  doc TEXT,
  PRIMARY KEY (hash, seq)
) WITHOUT ROWID;
CREATE INDEX symbol_by_name ON symbol (name, hash, seq);
CREATE TABLE chunk (id INTEGER PRIMARY KEY, hash BLOB NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, names TEXT NOT NULL);
CREATE INDEX chunk_by_hash ON chunk (hash);
CREATE VIRTUAL TABLE chunk_text USING fts5(symbols, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
`;

const SYMBOL_COLUMNS =
  'f.path, s.name, s.kind, s.container, s.start_line, s.start_col, s.end_line, s.end_col, s.name_line, s.name_col, s.name_end_line, s.name_end_col, s.signature, s.doc';

/** A workspace's file as the index last saw it. */
export interface FileRow {
  path: string;
  size: number;
  mtime: number;
  ctime: number;
  inode: number;
  hash: Buffer | null;
  language: IndexedLanguage;
  state: FileState;
  reason: SkipReason | null;
}

/** A definition's row, with its file's path. */
export interface SymbolRow {
  path: string;
  name: string;
  kind: string;
  container: string | null;
  start_line: number;
  start_col: number;
  end_line: number;
  end_col: number;
  name_line: number;
  name_col: number;
  name_end_line: number;
  name_end_col: number;
  signature: string;
  doc: string | null;
}

/** A ranked chunk. */
export interface ChunkHit {
  path: string;
  start_line: number;
  end_line: number;
  names: string;
  rank: number;
}

/** Counts of a workspace's files by state. */
export interface FileCounts {
  files: number;
  parsed: number;
  lexical: number;
  skipped: number;
}

/**
 * The code index's database.
 *
 * @example
 *   const db = IndexDatabase.open('/home/ada/.local/share/loom');
 *   const workspace = db.workspace('/home/ada/code/app');
 *   db.counts(workspace); // { files: 1234, parsed: 1100, lexical: 120, skipped: 14 }
 */
export class IndexDatabase {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  private constructor(
    private readonly sqlite: SqliteDatabase.Database,
    /** The database's path. */
    readonly location: string,
  ) {}

  /**
   * Opens (or creates) the index in `dataDir`, private to its owner. A file from another
   * schema version, or one SQLite cannot read, is a cache: it is rebuilt from scratch.
   */
  static open(dataDir: string, warn: ModeWarning = () => {}): IndexDatabase {
    ensurePrivateDir(dataDir, warn);
    const file = path.join(dataDir, INDEX_FILE);
    try {
      return IndexDatabase.openFile(file, warn);
    } catch (error) {
      if (!isCorrupt(error)) throw error;
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      return IndexDatabase.openFile(file, warn);
    }
  }

  private static openFile(file: string, warn: ModeWarning): IndexDatabase {
    createPrivateFile(file, warn);
    const sqlite = new SqliteDatabase(file);
    try {
      sqlite.pragma('journal_mode = WAL');
      // A cache: a crash may lose the last batch, which the next build redoes.
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('busy_timeout = 10000');
      const version = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() as { name: string } | undefined)
        ? (sqlite.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined)?.value
        : undefined;
      if (version !== SCHEMA_VERSION) {
        sqlite.transaction(() => {
          const tables = sqlite
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'chunk_text_%'")
            .all() as { name: string }[];
          for (const { name } of tables) sqlite.exec(`DROP TABLE IF EXISTS "${name}"`);
          sqlite.exec(SCHEMA);
          sqlite.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        })();
      }
      return new IndexDatabase(sqlite, file);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }

  /** The id of the workspace at `root` (its real path), made on first use. */
  workspace(root: string): number {
    this.run('INSERT INTO workspace (root) VALUES (?) ON CONFLICT (root) DO NOTHING', root);
    return (this.get('SELECT id FROM workspace WHERE root = ?', root) as { id: number }).id;
  }

  /** Forgets workspaces whose folder is gone, so that their content can be dropped. */
  forgetMissingWorkspaces(exists: (root: string) => boolean): number {
    const gone = (this.all('SELECT id, root FROM workspace') as { id: number; root: string }[]).filter((row) => !exists(row.root));
    this.transaction(() => {
      for (const { id } of gone) {
        this.run('DELETE FROM file WHERE workspace = ?', id);
        this.run('DELETE FROM skip WHERE workspace = ?', id);
        this.run('DELETE FROM workspace WHERE id = ?', id);
      }
    });
    return gone.length;
  }

  /** Starts a new walk of a workspace: what the walk does not see again is removed by sweep(). */
  nextGeneration(workspace: number): number {
    this.run('UPDATE workspace SET generation = generation + 1 WHERE id = ?', workspace);
    return (this.get('SELECT generation FROM workspace WHERE id = ?', workspace) as { generation: number }).generation;
  }

  /** The generation of the last walk (updates of single paths mark their rows with it). */
  generation(workspace: number): number {
    return (this.get('SELECT generation FROM workspace WHERE id = ?', workspace) as { generation: number }).generation;
  }

  file(workspace: number, filePath: string): FileRow | undefined {
    return this.get('SELECT path, size, mtime, ctime, inode, hash, language, state, reason FROM file WHERE workspace = ? AND path = ?', workspace, filePath) as
      FileRow | undefined;
  }

  /** Marks a file seen by this walk, unchanged. */
  seen(workspace: number, filePath: string, generation: number): void {
    this.run('UPDATE file SET generation = max(generation, ?) WHERE workspace = ? AND path = ?', generation, workspace, filePath);
  }

  /**
   * Records a file; content the file no longer points to is marked used now (kept a while).
   * Returns the key the file pointed to before (null: none, undefined: a new file).
   */
  putFile(workspace: number, row: FileRow, generation: number, now: number): Buffer | null | undefined {
    const before = this.get('SELECT hash FROM file WHERE workspace = ? AND path = ?', workspace, row.path) as { hash: Buffer | null } | undefined;
    this.run(
      `INSERT INTO file (workspace, path, size, mtime, ctime, inode, hash, language, state, reason, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (workspace, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, ctime = excluded.ctime, inode = excluded.inode,
         hash = excluded.hash, language = excluded.language, state = excluded.state, reason = excluded.reason, generation = max(file.generation, excluded.generation)`,
      workspace,
      row.path,
      row.size,
      row.mtime,
      row.ctime,
      row.inode,
      row.hash,
      row.language,
      row.state,
      row.reason,
      generation,
    );
    if (before?.hash && (!row.hash || !before.hash.equals(row.hash))) this.run('UPDATE blob SET used = ? WHERE hash = ?', now, before.hash);
    if (row.hash) this.run('UPDATE blob SET used = ? WHERE hash = ? AND used < ?', now, row.hash, now);
    return before ? before.hash : undefined;
  }

  /** Removes a file, or every file below a folder; returns the keys they pointed to. */
  removeFiles(workspace: number, filePath: string, now: number): Buffer[] {
    const below = `${filePath}/`;
    const rows = this.all(
      'SELECT hash FROM file WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?))',
      workspace,
      filePath,
      below,
      `${filePath}0`,
    ) as {
      hash: Buffer | null;
    }[];
    for (const { hash } of rows) if (hash) this.run('UPDATE blob SET used = ? WHERE hash = ?', now, hash);
    this.run('DELETE FROM file WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?))', workspace, filePath, below, `${filePath}0`);
    this.run('DELETE FROM skip WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?))', workspace, filePath, below, `${filePath}0`);
    return rows.flatMap(({ hash }) => (hash ? [hash] : []));
  }

  /** Removes what the walk of `generation` did not see; returns how many files. */
  sweep(workspace: number, generation: number, now: number): number {
    this.run(
      'UPDATE blob SET used = ? WHERE hash IN (SELECT hash FROM file WHERE workspace = ? AND generation < ? AND hash IS NOT NULL)',
      now,
      workspace,
      generation,
    );
    const removed = this.run('DELETE FROM file WHERE workspace = ? AND generation < ?', workspace, generation).changes;
    this.run('DELETE FROM skip WHERE workspace = ? AND generation < ?', workspace, generation);
    return removed;
  }

  putSkip(workspace: number, entryPath: string, reason: SkipReason, generation: number): void {
    this.run(
      'INSERT INTO skip (workspace, path, reason, generation) VALUES (?, ?, ?, ?) ON CONFLICT (workspace, path) DO UPDATE SET reason = excluded.reason, generation = max(skip.generation, excluded.generation)',
      workspace,
      entryPath,
      reason,
      generation,
    );
  }

  /** How content already stored is indexed, or undefined when it is not stored. */
  contentState(hash: Buffer): { state: FileState; reason: SkipReason | null } | undefined {
    return this.get('SELECT state, reason FROM blob WHERE hash = ?', hash) as { state: FileState; reason: SkipReason | null } | undefined;
  }

  hasContent(hash: Buffer): boolean {
    return this.get('SELECT 1 AS found FROM blob WHERE hash = ?', hash) !== undefined;
  }

  /** Stores a file's content under its key (nothing when the key is already there). */
  putContent(hash: Buffer, content: IndexedContent, now: number): void {
    if (this.hasContent(hash)) return;
    this.run(
      'INSERT INTO blob (hash, language, state, reason, lines, truncated, syntax_errors, imports, refs, ref_count, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      hash,
      content.language,
      content.state,
      content.reason ?? null,
      content.lines,
      content.truncated ? 1 : 0,
      content.syntaxErrors ? 1 : 0,
      JSON.stringify(content.imports),
      Buffer.from(content.references.buffer, content.references.byteOffset, content.references.byteLength),
      content.referenceCount,
      now,
    );
    const symbol = this.statement(
      'INSERT INTO symbol (hash, seq, name, kind, container, start_line, start_col, end_line, end_col, name_line, name_col, name_end_line, name_end_col, signature, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    content.definitions.forEach((d, seq) =>
      symbol.run(
        hash,
        seq,
        d.name,
        d.kind,
        d.container ?? null,
        d.range.start.line,
        d.range.start.column,
        d.range.end.line,
        d.range.end.column,
        d.nameRange.start.line,
        d.nameRange.start.column,
        d.nameRange.end.line,
        d.nameRange.end.column,
        d.signature,
        d.doc ?? null,
      ),
    );
    const chunk = this.statement('INSERT INTO chunk (hash, start_line, end_line, names) VALUES (?, ?, ?, ?)');
    const text = this.statement('INSERT INTO chunk_text (rowid, symbols, body) VALUES (?, ?, ?)');
    const namesByLine = new Map<number, string[]>();
    for (const d of content.definitions) namesByLine.set(d.nameRange.start.line, [...(namesByLine.get(d.nameRange.start.line) ?? []), d.name]);
    for (const piece of content.chunks) {
      const names: string[] = [];
      for (let line = piece.startLine; line <= piece.endLine; line++) names.push(...(namesByLine.get(line) ?? []));
      const id = chunk.run(hash, piece.startLine, piece.endLine, names.join(' ')).lastInsertRowid;
      text.run(id, piece.symbols, piece.body);
    }
  }

  /** Drops content no file points to and unused for KEEP_UNUSED_DAYS; returns how many. */
  collectGarbage(now: number): number {
    const before = now - KEEP_UNUSED_DAYS * 86_400;
    const stale = this.all('SELECT hash FROM blob WHERE used < ? AND hash NOT IN (SELECT hash FROM file WHERE hash IS NOT NULL)', before) as { hash: Buffer }[];
    this.transaction(() => {
      for (const { hash } of stale) {
        this.run('DELETE FROM chunk_text WHERE rowid IN (SELECT id FROM chunk WHERE hash = ?)', hash);
        this.run('DELETE FROM chunk WHERE hash = ?', hash);
        this.run('DELETE FROM symbol WHERE hash = ?', hash);
        this.run('DELETE FROM blob WHERE hash = ?', hash);
      }
    });
    return stale.length;
  }

  counts(workspace: number): FileCounts {
    const rows = this.all('SELECT state, count(*) AS n FROM file WHERE workspace = ? GROUP BY state', workspace) as { state: FileState; n: number }[];
    const counts: FileCounts = { files: 0, parsed: 0, lexical: 0, skipped: 0 };
    for (const { state, n } of rows) {
      counts.files += n;
      counts[state] += n;
    }
    counts.skipped += (this.get('SELECT count(*) AS n FROM skip WHERE workspace = ?', workspace) as { n: number }).n;
    return counts;
  }

  /** Every file of a workspace, in path order. */
  files(workspace: number): { path: string; state: FileState; reason: SkipReason | null; language: IndexedLanguage; size: number }[] {
    return this.all('SELECT path, state, reason, language, size FROM file WHERE workspace = ? ORDER BY path', workspace) as {
      path: string;
      state: FileState;
      reason: SkipReason | null;
      language: IndexedLanguage;
      size: number;
    }[];
  }

  /** Files and entries left out, with the reason. */
  skipped(workspace: number, limit: number): { path: string; reason: SkipReason }[] {
    return this.all(
      `SELECT path, reason FROM file WHERE workspace = ? AND reason IS NOT NULL
       UNION ALL SELECT path, reason FROM skip WHERE workspace = ? ORDER BY path LIMIT ?`,
      workspace,
      workspace,
      limit,
    ) as { path: string; reason: SkipReason }[];
  }

  /** Definitions whose name is LIKE `pattern` (case-insensitive for ASCII), at most `limit`; in `file` only when given. */
  symbols(workspace: number, pattern: string, limit: number, file?: string): SymbolRow[] {
    const columns =
      'f.path, s.name, s.kind, s.container, s.start_line, s.start_col, s.end_line, s.end_col, s.name_line, s.name_col, s.name_end_line, s.name_end_col, s.signature, s.doc';
    if (file !== undefined) {
      return this.all(
        `SELECT ${columns} FROM file f JOIN symbol s ON s.hash = f.hash WHERE f.workspace = ? AND f.path = ? AND s.name LIKE ? ESCAPE '\\' ORDER BY s.seq LIMIT ?`,
        workspace,
        file,
        pattern,
        limit,
      ) as SymbolRow[];
    }
    return this.all(
      `SELECT ${columns} FROM file f JOIN symbol s ON s.hash = f.hash WHERE f.workspace = ? AND s.name LIKE ? ESCAPE '\\' LIMIT ?`,
      workspace,
      pattern,
      limit,
    ) as SymbolRow[];
  }

  /** The names of every definition of a workspace (a name as often as it is defined). */
  definedNames(workspace: number): string[] {
    return (this.all('SELECT s.name FROM file f JOIN symbol s ON s.hash = f.hash WHERE f.workspace = ?', workspace) as { name: string }[]).map(
      (row) => row.name,
    );
  }

  /** The names defined in one content. */
  namesOf(hash: Buffer): string[] {
    return (this.all('SELECT name FROM symbol WHERE hash = ?', hash) as { name: string }[]).map((row) => row.name);
  }

  /** At most `limit` definitions of a workspace named exactly `name` (a prepared statement: microseconds). */
  symbolsNamedAtMost(workspace: number, name: string, limit: number): SymbolRow[] {
    return this.all(
      `SELECT ${SYMBOL_COLUMNS} FROM symbol s INDEXED BY symbol_by_name CROSS JOIN file f ON f.hash = s.hash AND f.workspace = ? WHERE s.name = ? LIMIT ?`,
      workspace,
      name,
      limit,
    ) as SymbolRow[];
  }

  /** The definitions of a workspace named exactly one of `names`. */
  symbolsNamed(workspace: number, names: readonly string[]): SymbolRow[] {
    const rows: SymbolRow[] = [];
    for (let from = 0; from < names.length; from += 500) {
      const some = names.slice(from, from + 500);
      rows.push(
        ...(this.sqlite
          .prepare(
            `SELECT ${SYMBOL_COLUMNS} FROM symbol s INDEXED BY symbol_by_name CROSS JOIN file f ON f.hash = s.hash AND f.workspace = ?
             WHERE s.name IN (${some.map(() => '?').join(', ')})`,
          )
          .all(workspace, ...some) as SymbolRow[]),
      );
    }
    return rows;
  }

  /** A file's imports alone (undefined when the file is not in the index). */
  importsOf(workspace: number, filePath: string): Import[] | undefined {
    const row = this.get('SELECT b.imports FROM file f JOIN blob b ON b.hash = f.hash WHERE f.workspace = ? AND f.path = ?', workspace, filePath) as
      { imports: string } | undefined;
    return row ? (JSON.parse(row.imports) as Import[]) : undefined;
  }

  /** A file's stored content: its definitions, imports and packed references. */
  outline(
    workspace: number,
    filePath: string,
  ):
    | { language: IndexedLanguage; state: string; truncated: boolean; syntaxErrors: boolean; imports: Import[]; refs: Buffer; definitions: Definition[] }
    | undefined {
    const row = this.get(
      'SELECT b.language, b.state, b.truncated, b.syntax_errors, b.imports, b.refs FROM file f JOIN blob b ON b.hash = f.hash WHERE f.workspace = ? AND f.path = ?',
      workspace,
      filePath,
    ) as { language: IndexedLanguage; state: string; truncated: number; syntax_errors: number; imports: string; refs: Buffer } | undefined;
    if (!row) return undefined;
    const definitions = this.symbols(workspace, '%', 1_000_000, filePath).map(definitionOf);
    return {
      language: row.language,
      state: row.state,
      truncated: row.truncated === 1,
      syntaxErrors: row.syntax_errors === 1,
      imports: JSON.parse(row.imports) as Import[],
      refs: row.refs,
      definitions,
    };
  }

  /** Chunks matching an FTS5 query, best (lowest bm25) first; names weigh four times the text. */
  ranked(workspace: number, query: string, limit: number): ChunkHit[] {
    return this.all(
      `SELECT f.path, c.start_line, c.end_line, c.names, bm25(chunk_text, 4.0, 1.0) AS rank
       FROM chunk_text JOIN chunk c ON c.id = chunk_text.rowid JOIN file f ON f.hash = c.hash AND f.workspace = ?
       WHERE chunk_text MATCH ? ORDER BY rank LIMIT ?`,
      workspace,
      query,
      limit,
    ) as ChunkHit[];
  }

  /** Files whose chunks hold an FTS5 term, with their packed references: the candidates of a references search. */
  referenceCandidates(workspace: number, query: string, limit: number): { path: string; refs: Buffer }[] {
    return this.all(
      `SELECT f.path, b.refs FROM file f JOIN blob b ON b.hash = f.hash
       WHERE f.workspace = ? AND f.hash IN (SELECT c.hash FROM chunk_text JOIN chunk c ON c.id = chunk_text.rowid WHERE chunk_text MATCH ?)
       ORDER BY f.path LIMIT ?`,
      workspace,
      query,
      limit,
    ) as { path: string; refs: Buffer }[];
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work)();
  }

  close(): void {
    this.statements.clear();
    if (this.sqlite.open) this.sqlite.close();
  }

  private statement(sql: string): SqliteDatabase.Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.sqlite.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  private run(sql: string, ...parameters: unknown[]): SqliteDatabase.RunResult {
    return this.statement(sql).run(...parameters);
  }

  private get(sql: string, ...parameters: unknown[]): unknown {
    return this.statement(sql).get(...parameters);
  }

  private all(sql: string, ...parameters: unknown[]): unknown[] {
    return this.statement(sql).all(...parameters);
  }
}

/** A stored definition as the model has it. */
export function definitionOf(row: Omit<SymbolRow, 'path'>): Definition {
  const definition: Definition = {
    name: row.name,
    kind: row.kind as SymbolKind,
    range: { start: { line: row.start_line, column: row.start_col }, end: { line: row.end_line, column: row.end_col } },
    nameRange: { start: { line: row.name_line, column: row.name_col }, end: { line: row.name_end_line, column: row.name_end_col } },
    signature: row.signature,
  };
  if (row.container !== null) definition.container = row.container;
  if (row.doc !== null) definition.doc = row.doc;
  return definition;
}

/** SQLite's answer for a file that is no database, or a damaged one. */
function isCorrupt(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
