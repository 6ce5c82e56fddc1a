// `loom composer --attach`: the local files matching --files, sent as the session's
// attachments. They are found as the server finds files in scope (the same globs, the same
// walk: no .git or .loom, no dependency folders unless a glob names one, symbolic links not
// followed, so nothing outside the folder is sent), and checked against the server's caps
// before anything is sent: a refusal here names the files, a refusal there would not.
import fs from 'node:fs';
import path from 'node:path';
import { MAX_ATTACHMENT_CHARS, MAX_ATTACHMENT_CONTENT, MAX_ATTACHMENTS } from '../../contracts/composer.ts';
import { GlobSet } from '../../core/agents/scope/glob.ts';
import { walkFiles } from '../../core/agents/scope/walk.ts';
import { LoomError } from '../../core/errors.ts';
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
 * The text files under `folder` that `globs` match, read for sending.
 *
 * @example const { attachments } = await collectAttachments(process.cwd(), ['src/**']);
 */
export async function collectAttachments(folder: string, globs: readonly string[]): Promise<CollectedAttachments> {
  let scope: GlobSet;
  try {
    scope = new GlobSet(globs);
  } catch (error) {
    if (error instanceof LoomError) throw new CliError(`--files: ${error.message}`, EXIT.usage);
    throw error;
  }
  const root = fs.realpathSync.native(folder);
  const found = new Set<string>();
  for (const base of scope.bases()) {
    // One more than the cap: enough to know there are too many.
    const { files } = await walkFiles(root, base, (file) => scope.matches(file), { limit: MAX_ATTACHMENTS + 1 });
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
    const bytes = fs.readFileSync(path.join(root, ...file.split('/')));
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
