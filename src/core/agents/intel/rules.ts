// The project's rules files, for a task's system prompt: AGENTS.md, CLAUDE.md and .cursorrules at
// the workspace root and in the folders of the files in scope (and their parents), and at the
// root .github/copilot-instructions.md and .loom/rules/*.md (whose front matter may say which
// files they apply to: `globs: src/**/*.ts` or `globs: ["a/**", "b/**"]`). They go into the
// prompt within a token budget, the root's first, then nearer folders' after (what a folder
// says is more specific, so it comes last and is read last).
//
// A rules file is workspace content: anyone who can change the repository wrote it. It becomes
// prompt text, marked as the project's conventions, and nothing else: it names no settings, no
// commands that run without asking, no files the task may change.
import fs from 'node:fs';
import { estimateTokens } from '../../code/token-count.ts';
import type { AgentFiles } from '../files/agent-files.ts';
import { compileGlob } from '../scope/glob.ts';

/** Rules files looked for in each folder. */
const FOLDER_RULES = ['AGENTS.md', 'CLAUDE.md', '.cursorrules'];
/** Rules files looked for at the root only. */
const ROOT_RULES = ['.github/copilot-instructions.md'];
const RULES_FOLDER = '.loom/rules';
/** Folders of the files in scope looked in, at most (the root's always). */
const MAX_FOLDERS = 200;
/** Files in .loom/rules read, at most. */
const MAX_RULE_FILES = 50;
/** Characters of one rules file read (a larger one is cut). */
const MAX_FILE_CHARS = 64 * 1024;

/** A rules file as the step log lists it. */
export interface LoadedRule {
  path: string;
  /** Tokens it takes in the prompt (estimated). */
  tokens: number;
  /** Cut to fit the budget. */
  cut?: true;
}

export interface RulesContext {
  /** The rules' text for the system prompt (empty when none). */
  text: string;
  /** The files loaded, in the prompt's order. */
  loaded: LoadedRule[];
  /** Files found and left out: over the budget, or whose globs match no file in scope. */
  skipped: string[];
}

/**
 * The rules for a task whose files in scope are `inScope`, within `tokens`.
 *
 * @example
 *   const rules = loadRules(workspace, ['src/api/routes.ts'], 2048);
 *   rules.loaded // [{ path: 'AGENTS.md', tokens: 120 }, { path: 'src/api/AGENTS.md', tokens: 40 }]
 */
export function loadRules(files: AgentFiles, inScope: readonly string[], tokens: number): RulesContext {
  const candidates = rulePaths(files, inScope);
  const loaded: LoadedRule[] = [];
  const skipped: string[] = [];
  const parts: string[] = [];
  let left = Math.max(0, Math.floor(tokens));
  for (const path of candidates) {
    const read = readRule(files, path);
    if (read === null) continue;
    const { body, globs } = frontMatter(read);
    if (globs && !appliesTo(globs, inScope)) {
      skipped.push(path);
      continue;
    }
    const text = body.trim();
    if (text === '') continue;
    let block = ruleBlock(path, text);
    let cost = estimateTokens(block);
    let cut = false;
    if (cost > left) {
      // The first file that does not fit is cut to what is left (when that is worth reading); later ones are left out.
      const note = `\n[… the rest of ${path} was left out: the rules' budget (agents.rulesTokens) is spent]`;
      // A cut at a line's end may cost a token more than the text before it: one of slack.
      const room = left - estimateTokens(ruleBlock(path, note)) - 1;
      if (room < 50) {
        skipped.push(path);
        left = 0;
        continue;
      }
      block = ruleBlock(path, `${cutToTokens(text, room)}${note}`);
      cost = estimateTokens(block);
      cut = true;
    }
    parts.push(block);
    loaded.push({ path, tokens: cost, ...(cut ? { cut: true as const } : {}) });
    left -= cost;
  }
  return { text: parts.join('\n\n'), loaded, skipped };
}

/** The rules files that exist, root first, then folders by depth and name. */
function rulePaths(files: AgentFiles, inScope: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of inScope) {
    let folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    while (folder !== '' && !folders.has(folder)) {
      if (folders.size >= MAX_FOLDERS) break;
      folders.add(folder);
      folder = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
    }
  }
  const ordered = [...folders].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const paths = [...FOLDER_RULES, ...ROOT_RULES, ...ruleFolderFiles(files)];
  for (const folder of ordered) for (const name of FOLDER_RULES) paths.push(`${folder}/${name}`);
  return paths;
}

/** .loom/rules/*.md, by name. */
function ruleFolderFiles(files: AgentFiles): string[] {
  try {
    const folder = files.paths.resolve(RULES_FOLDER);
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.name.endsWith('.md') && (entry.isFile() || entry.isSymbolicLink()))
      .map((entry) => `${RULES_FOLDER}/${entry.name}`)
      .sort()
      .slice(0, MAX_RULE_FILES);
  } catch {
    return []; // no such folder, or one leading out of the workspace
  }
}

/** A rules file's text (cut at MAX_FILE_CHARS), or null when it is missing or unreadable. */
function readRule(files: AgentFiles, path: string): string | null {
  try {
    const text = files.read(files.key(path));
    return text === null ? null : text.slice(0, MAX_FILE_CHARS);
  } catch {
    return null;
  }
}

/**
 * A file's front matter (between `---` lines at its top): its `globs`, as a list or one glob,
 * comma-separated or a bracketed list. Other keys are ignored: a rules file sets nothing.
 */
export function frontMatter(text: string): { body: string; globs?: string[] } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { body: text };
  const body = text.slice(match[0].length);
  const line = /^globs[ \t]*:[ \t]*(.*)$/m.exec(match[1]!);
  if (!line) return { body };
  const listed: string[] = [];
  // A YAML list on the following lines (`- src/**`), or values on the same line.
  const rest = match[1]!.slice(line.index + line[0].length).split(/\r?\n/);
  if (line[1]!.trim() === '')
    for (const next of rest.slice(1)) {
      const item = /^\s*-\s*(.+)$/.exec(next);
      if (!item) break;
      listed.push(item[1]!);
    }
  else listed.push(...line[1]!.replace(/^\[|\]$/g, '').split(','));
  const globs = listed.map((glob) => glob.trim().replace(/^["']|["']$/g, '')).filter((glob) => glob !== '');
  return globs.length ? { body, globs } : { body };
}

/** Whether any file in scope matches one of the globs (a glob that does not compile matches nothing). */
function appliesTo(globs: readonly string[], inScope: readonly string[]): boolean {
  for (const glob of globs) {
    try {
      const compiled = compileGlob(glob);
      if (inScope.some((file) => compiled.matches(file))) return true;
    } catch {
      // an unreadable glob applies to nothing
    }
  }
  return false;
}

/** A rules file as the prompt carries it: delimited, so that its text cannot pose as Loom's own rules. */
function ruleBlock(path: string, text: string): string {
  return `<rules file="${path.replace(/"/g, '%22')}">\n${text.replace(/<\/rules>/gi, '<\\/rules>')}\n</rules>`;
}

/** The longest prefix of `text`, at a line's end where possible, of at most `tokens`. */
function cutToTokens(text: string, tokens: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(text.slice(0, mid)) <= tokens) low = mid;
    else high = mid - 1;
  }
  const cut = text.slice(0, low);
  const lineEnd = cut.lastIndexOf('\n');
  return lineEnd > low / 2 ? cut.slice(0, lineEnd) : cut;
}
