// Extension manifests: a folder's package.json in the shape VS Code authors know (name, version,
// main, activationEvents, contributes.commands), read and checked. A manifest that fails a check
// is a problem to report, never an extension to run.
import fs from 'node:fs';
import path from 'node:path';

/** Where an extension was found: the user's config folder (always trusted) or the workspace (trusted by the user, or not run). */
export type ExtensionScope = 'user' | 'workspace';

export interface ContributedCommand {
  command: string;
  title: string;
}

export interface ExtensionManifest {
  name: string;
  version: string;
  /** `displayName`, else the name. */
  title: string;
  description?: string;
  /** The folder holding package.json (its real path). */
  dir: string;
  /** The file the host loads, absolute, inside `dir`. */
  main: string;
  scope: ExtensionScope;
  /** `onStartup` (or `*`): activated when the server starts (or the workspace is trusted). */
  activateOnStartup: boolean;
  /** The commands it declares in `contributes.commands`; running one activates it. */
  commands: ContributedCommand[];
}

export interface ManifestProblem {
  /** The extension's folder. */
  dir: string;
  message: string;
}

/** Names of extensions and of commands: what a URL path segment and a CLI argument carry unescaped. */
export const EXTENSION_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_COMMANDS = 200;
const MAIN_EXTENSIONS = ['.js', '.cjs', '.mjs'];

/**
 * Reads and checks the manifest of the extension in `dir`.
 *
 * @example
 *   const read = readManifest('/home/me/.config/loom/extensions/word-count', 'user');
 *   if ('problem' in read) console.warn(read.problem); else console.log(read.manifest.commands);
 */
export function readManifest(dir: string, scope: ExtensionScope): { manifest: ExtensionManifest } | { problem: string } {
  let realDir: string;
  let text: string;
  try {
    realDir = fs.realpathSync(dir);
    const file = path.join(realDir, 'package.json');
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return { problem: 'it has no package.json' };
    if (!stat.isFile()) return { problem: 'its package.json is not a file' };
    if (stat.size > MAX_MANIFEST_BYTES) return { problem: `its package.json is larger than ${MAX_MANIFEST_BYTES / 1024} KiB` };
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `its package.json cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `its package.json is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(json)) return { problem: 'its package.json is not a JSON object' };
  const problem = manifestProblem(json);
  if (problem) return { problem: `package.json: ${problem}` };
  const main = path.resolve(realDir, json.main as string);
  let realMain: string;
  try {
    realMain = fs.realpathSync(main);
  } catch {
    return { problem: `package.json: main (${json.main as string}) does not exist` };
  }
  if (!inside(realDir, realMain)) return { problem: `package.json: main (${json.main as string}) leaves the extension's folder` };
  if (!fs.statSync(realMain).isFile()) return { problem: `package.json: main (${json.main as string}) is not a file` };
  const events = (json.activationEvents as string[] | undefined) ?? [];
  const contributes = json.contributes as { commands?: ContributedCommand[] } | undefined;
  return {
    manifest: {
      name: json.name as string,
      version: json.version as string,
      title: typeof json.displayName === 'string' && json.displayName.trim() ? json.displayName : (json.name as string),
      ...(typeof json.description === 'string' ? { description: json.description } : {}),
      dir: realDir,
      main: realMain,
      scope,
      activateOnStartup: events.includes('onStartup') || events.includes('*'),
      commands: (contributes?.commands ?? []).map(({ command, title }) => ({ command, title })),
    },
  };
}

/** What is wrong with a manifest's fields, or null. */
function manifestProblem(json: Record<string, unknown>): string | null {
  const { name, version, main, activationEvents, contributes, displayName } = json;
  if (typeof name !== 'string' || !EXTENSION_NAME.test(name)) return 'name must be lower case letters, digits, ".", "_" or "-" (1 to 100), e.g. "word-count"';
  if (typeof version !== 'string' || version.length === 0 || version.length > 64) return 'version must be a string, e.g. "1.0.0"';
  if (displayName !== undefined && (typeof displayName !== 'string' || displayName.length > 200))
    return 'displayName must be a string of at most 200 characters';
  if (typeof main !== 'string' || main.length === 0 || main.length > 1024) return 'main must name the extension\'s JavaScript file, e.g. "./extension.js"';
  if (path.isAbsolute(main)) return "main must be relative to the extension's folder";
  if (!MAIN_EXTENSIONS.includes(path.extname(main))) return `main must be a JavaScript file (${MAIN_EXTENSIONS.join(', ')})`;
  if (activationEvents !== undefined) {
    if (!Array.isArray(activationEvents) || activationEvents.length > 1000) return 'activationEvents must be a list';
    for (const event of activationEvents) {
      if (typeof event !== 'string') return 'activationEvents must be strings';
      if (event === 'onStartup' || event === '*') continue;
      if (event.startsWith('onCommand:') && COMMAND_NAME.test(event.slice('onCommand:'.length))) continue;
      return `activation event ${JSON.stringify(event.slice(0, 100))} is not one Loom knows: onStartup, * or onCommand:<command>`;
    }
  }
  if (contributes !== undefined && !isObject(contributes)) return 'contributes must be an object';
  const commands = (contributes as Record<string, unknown> | undefined)?.commands;
  if (commands !== undefined) {
    if (!Array.isArray(commands) || commands.length > MAX_COMMANDS) return `contributes.commands must be a list of at most ${MAX_COMMANDS}`;
    const seen = new Set<string>();
    for (const entry of commands) {
      if (!isObject(entry) || typeof entry.command !== 'string' || !COMMAND_NAME.test(entry.command))
        return 'each of contributes.commands needs a command: letters, digits, ".", "_", ":" or "-", e.g. "wordCount.count"';
      if (typeof entry.title !== 'string' || entry.title.trim() === '' || entry.title.length > 200)
        return `command ${entry.command} needs a title (1 to 200 characters): the command palette shows it`;
      if (seen.has(entry.command)) return `command ${entry.command} is contributed twice`;
      seen.add(entry.command);
    }
  }
  // onCommand:x activates on x, so x must be one of the contributed commands: else nothing could run it.
  for (const event of (activationEvents as string[] | undefined) ?? []) {
    const command = event.startsWith('onCommand:') ? event.slice('onCommand:'.length) : undefined;
    if (command && !((commands as ContributedCommand[] | undefined) ?? []).some((entry) => entry.command === command))
      return `activation event onCommand:${command} names a command that contributes.commands does not declare`;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * Every extension folder under `root` (e.g. `<config dir>/extensions`): the valid ones and what is
 * wrong with the others. A missing root holds none.
 *
 * @example
 *   const { manifests, problems } = discoverExtensions(path.join(workspace, '.loom', 'extensions'), 'workspace');
 */
export function discoverExtensions(root: string, scope: ExtensionScope): { manifests: ExtensionManifest[]; problems: ManifestProblem[] } {
  const manifests: ExtensionManifest[] = [];
  const problems: ManifestProblem[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { manifests, problems };
    return { manifests, problems: [{ dir: root, message: `the extensions folder cannot be read (${code ?? (error as Error).message})` }] };
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    // Hidden entries (.DS_Store, editors' folders) are not extensions.
    if (entry.name.startsWith('.')) continue;
    const dir = path.join(root, entry.name);
    const isFolder = entry.isDirectory() || (entry.isSymbolicLink() && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory());
    if (!isFolder) continue;
    const read = readManifest(dir, scope);
    if ('problem' in read) problems.push({ dir, message: read.problem });
    else manifests.push(read.manifest);
  }
  return { manifests, problems };
}

/** The folders extensions are found in: the user's (config dir) and the workspace's (`.loom/extensions`). */
export function extensionRoots(configDir: string, workspace: string): { user: string; workspace: string } {
  return { user: path.join(configDir, 'extensions'), workspace: path.join(workspace, '.loom', 'extensions') };
}
