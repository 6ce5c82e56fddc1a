// Staging and unstaging files, and a file as HEAD holds it (the left side of a diff), over a
// GitWorkspace. Paths go through the same checks as a commit's (validate.ts): inside the
// workspace, never in .git or in Loom's own folders, and reach git as literal pathspecs on
// stdin, never as options.
import { MAX_DIFF_SIDE_BYTES, type GitFileSide, type GitFilesRequest, type GitStatus } from '../../contracts/local-resources.ts';
import { LoomError } from '../../core/errors.ts';
import { isBinary } from '../../core/git/file-side.ts';
import type { GitCliWorkspace as GitWorkspace } from './git.ts';
import { literalPathspec, resolveWorkspacePaths } from '../../core/git/validate.ts';

/**
 * `POST /api/git/stage`: stages the files (new, changed and deleted ones), or every change in
 * the workspace when `files` is omitted, as `git add -A` does. Answers the status afterwards.
 *
 * @example
 *   await stageFiles(git, { files: ['src/a.ts'] }); // GitStatus: src/a.ts now `staged`
 */
export async function stageFiles(git: GitWorkspace, input: GitFilesRequest | undefined): Promise<GitStatus> {
  await git.exclusive(async () => {
    const ws = await git.workspace();
    const files = await namedFiles(git, ws.root, input);
    await git.add(ws, files ? [...files.map(literalPathspec), ...ws.excludes] : ['.', ...ws.excludes]);
  });
  return git.status();
}

/**
 * `POST /api/git/unstage`: puts the index back to HEAD for the files (or every file in the
 * workspace), leaving the working tree as it is: `git reset -- <files>`. In a repository with
 * no commit yet the files become untracked again. Answers the status afterwards.
 *
 * @example
 *   await unstageFiles(git, {}); // nothing staged any more
 */
export async function unstageFiles(git: GitWorkspace, input: GitFilesRequest | undefined): Promise<GitStatus> {
  await git.exclusive(async () => {
    const ws = await git.workspace();
    const files = await namedFiles(git, ws.root, input);
    const pathspecs = files ? files.map(literalPathspec) : ['.'];
    // `reset` exits 1 when it lists unstaged changes; -q keeps that list out.
    await git.git(ws, ['reset', '-q', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: [...pathspecs, ...ws.excludes].join('\0'), ok: [0, 1] });
  });
  return git.status();
}

/**
 * A file as HEAD holds it, for the left side of a diff: `path` is checked as a commit's paths
 * are; `originalPath` (a staged rename's source, from the status) is where HEAD has it.
 * Missing (added since, or no commit yet), binary and larger than MAX_DIFF_SIDE_BYTES are said
 * so, without text. A submodule or a folder at that path counts as binary.
 *
 * @example
 *   const { path, originalPath, head } = await fileAtHead(git, 'src/a.ts');
 */
export async function fileAtHead(git: GitWorkspace, file: string): Promise<{ path: string; originalPath: string | null; head: GitFileSide }> {
  const ws = await git.workspace();
  const [rel] = await resolveWorkspacePaths(ws.root, [file], git.options.loomFolders);
  if (!rel || rel === '.') throw new LoomError('not_a_file', `${file} is the workspace folder, not a file.`);
  const status = await git.status();
  const entry = status.files.find((candidate) => candidate.path === rel);
  const originalPath = entry?.originalPath ?? null;
  const missing: GitFileSide = { exists: false, binary: false, tooLarge: false, size: null, text: null };
  if (!status.head) return { path: rel, originalPath, head: missing };
  // `<mode> <type> <object> <size>\t<name>`; paths relative to the workspace folder, taken literally.
  const listed = await git.git(ws, ['ls-tree', '-l', '-z', 'HEAD', '--', originalPath ?? rel], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  const record = listed.stdout.toString('utf8').split('\0').find(Boolean);
  if (!record) return { path: rel, originalPath, head: missing };
  const [mode = '', type = '', object = '', sizeText = ''] = record.slice(0, record.indexOf('\t')).split(/\s+/);
  if (type !== 'blob') return { path: rel, originalPath, head: { exists: true, binary: true, tooLarge: false, size: null, text: null } };
  const size = Number(sizeText);
  if (size > MAX_DIFF_SIDE_BYTES) return { path: rel, originalPath, head: { exists: true, binary: false, tooLarge: true, size, text: null } };
  const blob = (await git.git(ws, ['cat-file', 'blob', object])).stdout;
  // A symlink's blob is its target's name: shown as text, as git diff shows it.
  const binary = mode !== '120000' && isBinary(blob);
  return { path: rel, originalPath, head: { exists: true, binary, tooLarge: false, size, text: binary ? null : blob.toString('utf8') } };
}

async function namedFiles(git: GitWorkspace, root: string, input: GitFilesRequest | undefined): Promise<string[] | undefined> {
  const files = input?.files;
  return files === undefined ? undefined : resolveWorkspacePaths(root, files, git.options.loomFolders);
}
