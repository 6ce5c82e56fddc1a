// `loom composer --attach`: the local files matching --files, sent as the session's
// attachments. They are found as the server finds files in scope (the same globs, the same
// walk: no .git or .loom, no dependency folders unless a glob names one, symbolic links
// followed only inside the folder, never into Loom's own folders, so nothing outside the folder
// and no Loom setting is sent), and checked against the server's caps before anything is sent:
// a refusal here names the files, a refusal there would not.
import fs from 'node:fs';
import { MAX_ATTACHMENT_CHARS, MAX_ATTACHMENT_CONTENT, MAX_ATTACHMENTS } from '../../contracts/composer.ts';
import { GlobSet } from '../../core/agents/scope/glob.ts';
import { walkFiles } from '../../core/agents/scope/walk.ts';
import { LoomError } from '../../core/errors.ts';
import { WorkspacePaths, type LoomFolder } from '../../core/workspace/paths.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';

export interface Attachment {
  path: string;
  content: string;
}

export interface CollectedAttachments {
  attachments: Attachment[];
  /** Matching files left out because they are not text (a NUL byte, or not UTF-8). */
  skipped: string[];
}

/**
 * The text files under `folder` that `globs` match, read for sending; `loomFolders`
 * (config/folders.ts) are never read.
 *
 * @example const { attachments } = await collectAttachments(process.cwd(), ['src/**'], loomFolders(config));
 */
export async function collectAttachments(folder: string, globs: readonly string[], loomFolders: readonly LoomFolder[] = []): Promise<CollectedAttachments> {
  let scope: GlobSet;
  try {
    scope = new GlobSet(globs);
  } catch (error) {
    if (error instanceof LoomError) throw new CliError(`--files: ${error.message}`, EXIT.usage);
    throw error;
  }
  const paths = new WorkspacePaths(folder, { loomFolders });
  const root = paths.root;
  const found = new Set<string>();
  for (const base of scope.bases()) {
    // One more than the cap: enough to know there are too many.
    const { files } = await walkFiles(paths, base, (file) => scope.matches(file), { limit: MAX_ATTACHMENTS + 1 }).catch((error: unknown) => {
      if (error instanceof LoomError) throw new CliError(`--files: ${error.message}`, EXIT.usage);
      throw error;
    });
    for (const file of files) found.add(file);
  }
  const files = [...found].sort();
  if (files.length === 0) throw new CliError(`no file under ${root} matches --files ${globs.join(' ')}; nothing to attach`);
  if (files.length > MAX_ATTACHMENTS) {
    throw new CliError(
      `more than ${MAX_ATTACHMENTS} files match --files ${globs.join(' ')}; the server takes at most ${MAX_ATTACHMENTS} attachments: narrow --files`,
    );
  }
  const attachments: Attachment[] = [];
  const skipped: string[] = [];
  let total = 0;
  for (const file of files) {
    const bytes = fs.readFileSync(paths.resolve(file));
    const content = bytes.toString('utf8');
    if (bytes.includes(0) || !Buffer.from(content, 'utf8').equals(bytes)) {
      skipped.push(file);
      continue;
    }
    if (content.length > MAX_ATTACHMENT_CONTENT) {
      throw new CliError(
        `${file} holds ${content.length} characters; the server takes at most ${MAX_ATTACHMENT_CONTENT} per attachment: leave it out of --files`,
      );
    }
    total += content.length;
    if (total > MAX_ATTACHMENT_CHARS) {
      throw new CliError(
        `the files matching --files hold more than ${MAX_ATTACHMENT_CHARS} characters, the server's cap for a session's attachments: narrow --files`,
      );
    }
    attachments.push({ path: file, content });
  }
  if (attachments.length === 0) throw new CliError(`the files matching --files are all binary (${skipped.join(', ')}); sessions edit text files`);
  return { attachments, skipped };
}
