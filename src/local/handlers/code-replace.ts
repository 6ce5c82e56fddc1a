// Replace in files (docs/code-intelligence.md): the preview pages through the workspace by file
// (the text search finds the files, one match each, through the code index), then reads each
// file's text now (its open document's, else the disk's) and computes the edits with the same
// RE2 matcher, so the edits' positions and the preview's base are for exactly the text they were
// made on. Applying goes through the language service's applyEdit (rename's): every file checked
// against its base first, then open documents edited (and saved when they were clean) and closed
// files written atomically through the workspace's gate.
import { createHash } from 'node:crypto';
import { LoomError } from '../../core/errors.ts';
import { readRegularFile } from '../../core/files/read-regular.ts';
import { MAX_SOURCE_BYTES } from '../../core/language/service.ts';
import type { EditBase } from '../../core/language/types.ts';
import { compileReplacement, replaceMatches } from '../../core/code/replace.ts';
import { compileTextQuery } from '../../core/code/text-match.ts';
import { editPreview } from './code.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

type ReplaceHandlers = Pick<LocalHandlersOf<'Code'>, 'previewReplace' | 'applyReplace'>;
type Preview = Awaited<ReturnType<ReplaceHandlers['previewReplace']>>;

/** The defaults of a page: files with matches, matches in all, matches per file. */
export const REPLACE_PAGE = { maxFiles: 100, maxMatches: 2000, maxMatchesPerFile: 1000, timeoutMs: 10_000 } as const;

export function codeReplaceHandlers({ code, documents, paths, languages }: LocalServices): ReplaceHandlers {
  return {
    previewReplace: async ({ body }, { signal }) => {
      const started = Date.now();
      const query = {
        pattern: body.pattern,
        regex: body.regex === true,
        caseSensitive: body.case === 'sensitive' ? true : body.case === 'insensitive' ? false : ('smart' as const),
        wholeWord: body.wholeWord === true,
      };
      // Both refused (400) before anything is read.
      const matcher = compileTextQuery(query);
      const replacement = compileReplacement(body.replacement, matcher, query.regex);
      const maxFiles = body.maxFiles ?? REPLACE_PAGE.maxFiles;
      const maxMatches = body.maxMatches ?? REPLACE_PAGE.maxMatches;
      const maxPerFile = body.maxMatchesPerFile ?? REPLACE_PAGE.maxMatchesPerFile;
      const timeoutMs = body.timeoutMs ?? REPLACE_PAGE.timeoutMs;
      const deadline = started + timeoutMs;
      // The files with a match, one more than the page holds (it says whether there are more).
      const candidates: string[] = [];
      let end: { files: number; skipped: number; truncated?: 'matches' | 'time' | 'aborted' } = { files: 0, skipped: 0 };
      for await (const item of code.searchText({
        ...query,
        include: body.include ?? [],
        exclude: body.exclude ?? [],
        ...(body.after !== undefined ? { after: body.after } : {}),
        maxMatches: maxFiles + 1,
        maxMatchesPerFile: 1,
        timeoutMs,
        view: 'editor',
        signal,
      })) {
        if (item.type === 'match') candidates.push(item.path);
        else end = item;
      }
      const answer: Preview = {
        files: [],
        matchCount: 0,
        searched: end.files,
        skipped: end.skipped,
        unwritable: 0,
        index: code.status().state,
        elapsedMs: 0,
      };
      let more = candidates.length > maxFiles || end.truncated === 'time';
      if (end.truncated === 'time' || end.truncated === 'aborted') answer.truncated = end.truncated;
      const open = new Map(documents.list().map((summary) => [summary.path, summary]));
      let last: string | undefined;
      for (const path of candidates.slice(0, maxFiles)) {
        if (signal.aborted || Date.now() > deadline) {
          answer.truncated = signal.aborted ? 'aborted' : 'time';
          more = true;
          break;
        }
        const room = maxMatches - answer.matchCount;
        if (room <= 0) {
          more = true;
          break;
        }
        const source = await currentText(path);
        if (!source) continue;
        const { edits, matches } = replaceMatches(source.text, matcher, replacement, Math.min(maxPerFile, room) + 1);
        if (matches.length === 0) {
          last = path;
          continue;
        }
        if (!writable(path, source.readOnly)) {
          answer.unwritable++;
          last = path;
          continue;
        }
        // A file that does not fit what is left of the page waits for the next one (unless it is the first).
        if (matches.length > room && answer.files.length > 0) {
          more = true;
          break;
        }
        const cut = matches.length > Math.min(maxPerFile, room);
        const kept = cut ? Math.min(maxPerFile, room) : matches.length;
        answer.files.push({ path, base: source.base, edits: edits.slice(0, kept), matches: matches.slice(0, kept), ...(cut ? { truncated: true } : {}) });
        answer.matchCount += kept;
        last = path;
      }
      // Where the next page starts: after the last file this one looked at (none when it got nowhere).
      if (more && last !== undefined) answer.next = last;
      answer.elapsedMs = Date.now() - started;
      return answer;

      /** A file's text now and what it is (the open document's at its version, else the disk's with its hash); undefined when it cannot be read. */
      async function currentText(path: string): Promise<{ text: string; base: EditBase; readOnly: boolean } | undefined> {
        const summary = open.get(path);
        try {
          if (summary) {
            const document = await documents.text(path);
            return { text: document.text, base: { kind: 'document', version: document.version }, readOnly: summary.readOnly === true };
          }
          const { text } = readRegularFile(paths.resolve(path), path, MAX_SOURCE_BYTES);
          return { text, base: { kind: 'disk', sha256: createHash('sha256').update(text).digest('hex') }, readOnly: false };
        } catch {
          // Gone, grown past the limit or unreadable since the index saw it: not part of the preview.
          return undefined;
        }
      }
    },
    applyReplace: async ({ body }) => {
      const before = new Map(documents.list().map((summary) => [summary.path, summary]));
      const applied = await languages.applyEdit(editPreview(body.files, 'POST /api/code/replace'));
      const files = [];
      for (const file of applied.files) {
        let saved = file.to === 'disk';
        // A document with nothing unsaved before is saved: the file on disk holds the replacement, as VS Code's replace does.
        if (file.to === 'document' && before.get(file.path)?.dirty === false) {
          try {
            await documents.save(file.path);
            saved = true;
          } catch (error) {
            if (!(error instanceof LoomError)) throw error;
          }
        }
        files.push({ ...file, saved });
      }
      return { files, edits: body.files.reduce((sum, file) => sum + file.edits.length, 0) };
    },
  };

  /** Whether Loom writes the file (not in .git or .loom, not protected); the check apply makes again. */
  function writable(path: string, readOnly: boolean): boolean {
    if (readOnly) return false;
    try {
      paths.resolveForWrite(path);
      return true;
    } catch {
      return false;
    }
  }
}
