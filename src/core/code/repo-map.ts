// The repository map: a compact outline of the files that matter for a task, for a model's
// prompt, within a token budget. Each file is its path and its key definitions' first lines
// (their signatures) with their line numbers; focus files come first, then the files locate
// ranks for the task, then the files the definition–reference graph ranks highest around them
// (Aider's repo map is the model: aider/repomap.py).
//
//   src/router/trie-router/node.ts
//     14│export class Node<T> {
//     48│  insert(method: string, path: string, handler: T): Node<T> {
import { fileGraph, MAX_DEFINERS, type GraphFile } from './file-graph.ts';
import { isGeneratedPath, isTestPath } from './file-roles.ts';
import type { ChangeHistory } from './history.ts';
import { locate, type LocateFile } from './locate.ts';
import { personalizedPageRank } from './pagerank.ts';
import { namedIdentifiers } from './terms.ts';
import { estimateTokens } from './token-count.ts';

/** A definition as the map shows it. */
export interface MapDefinition {
  name: string;
  /** 1-based line of the definition's first line. */
  line: number;
  kind?: string;
  /** The definition it is in (a method's class). */
  container?: string;
  /** Its first line, trimmed; read from the file's text when absent. */
  signature?: string;
}

/** What the map needs of one file: what locate needs, with signatures. */
export interface MapFile extends LocateFile {
  definitions: readonly MapDefinition[];
}

export interface RepoMapInput {
  files: readonly MapFile[];
  /** The task in words; without it the map ranks by the graph alone. */
  task?: string;
  /** Files the model is working on: shown first, with all their definitions that fit in half the budget. */
  focus?: readonly string[];
  /** The budget, in tokens as estimateTokens counts them. */
  tokens: number;
  history?: ChangeHistory;
}

export interface RepoMap {
  text: string;
  /** estimateTokens(text). */
  tokens: number;
  /** The files shown, in the map's order. */
  files: string[];
}

/** Definitions shown for a file that is not a focus file, at most. */
const MAX_DEFINITIONS_PER_FILE = 24;
/** The share of the budget focus files may take when there are other files to show. */
const FOCUS_SHARE = 0.5;
/** Characters of a signature shown. */
const MAX_SIGNATURE = 160;
/** Kinds that outline a file best; fields, variables and the like come after them. */
const STRUCTURAL = new Set(['class', 'interface', 'struct', 'trait', 'enum', 'type', 'function', 'method', 'constructor', 'module', 'namespace']);

/**
 * The map of `files` for `task` and `focus`, at most `tokens` long (and close to it when there
 * is enough to show).
 *
 * @example
 * const map = repositoryMap({ files, task: 'trailing slash in the trie router', focus: ['src/hono.ts'], tokens: 1024 });
 * map.text.startsWith('src/hono.ts\n') // true
 */
export function repositoryMap(input: RepoMapInput): RepoMap {
  const budget = Math.max(0, Math.floor(input.tokens));
  const byPath = new Map(input.files.map((file) => [file.path, file]));
  const focus = [...new Set(input.focus ?? [])].filter((path) => byPath.has(path));
  const order = mapOrder(input, focus);
  const named = new Set(input.task ? namedIdentifiers(input.task) : []);
  const usedBy = referenceCounts(input.files);

  const blocks: string[] = [];
  const shown: string[] = [];
  let used = 0;
  const separator = estimateTokens('\n');
  // Focus files take at most FOCUS_SHARE of the budget when other files are there to show.
  const focusBudget = order.length > focus.length ? Math.floor(budget * FOCUS_SHARE) : budget;
  for (const path of order) {
    const isFocus = focus.includes(path);
    const remaining = (isFocus ? focusBudget : budget) - used - (blocks.length ? separator : 0);
    if (remaining <= 0) {
      if (isFocus) continue;
      break;
    }
    const file = byPath.get(path)!;
    const ranked = rankDefinitions(file, named, usedBy).slice(0, isFocus ? undefined : MAX_DEFINITIONS_PER_FILE);
    const block = fitBlock(file, ranked, remaining);
    if (!block) continue;
    blocks.push(block.text);
    shown.push(path);
    used += block.tokens + (blocks.length > 1 ? separator : 0);
  }
  const text = blocks.join('\n');
  return { text, tokens: estimateTokens(text), files: shown };
}

// Focus files, then locate's answer for the task, then the rest by PageRank personalised on
// both (plain PageRank without either). Tests and generated files go last.
function mapOrder(input: RepoMapInput, focus: readonly string[]): string[] {
  const files = input.files;
  const located = input.task ? locate({ task: input.task, files, history: input.history, limit: files.length }) : [];
  const weight = new Float64Array(files.length);
  const index = new Map(files.map((file, i) => [file.path, i]));
  const best = located[0]?.score ?? 1;
  for (const hit of located) weight[index.get(hit.path)!] = Math.max(0, hit.score) / (best || 1);
  for (const path of focus) weight[index.get(path)!] = 1;
  const rank = personalizedPageRank(files.length, fileGraph(files as readonly GraphFile[]), weight);
  const rest = [...files.keys()].sort((a, b) => rank[b]! - rank[a]! || (files[a]!.path < files[b]!.path ? -1 : 1)).map((i) => files[i]!.path);
  const seen = new Set<string>();
  const order: string[] = [];
  const secondary: string[] = [];
  for (const path of [...focus, ...located.map((hit) => hit.path), ...rest]) {
    if (seen.has(path)) continue;
    seen.add(path);
    const file = files[index.get(path)!]!;
    if (!focus.includes(path) && (isTestPath(path) || isGeneratedPath(path, file.text))) secondary.push(path);
    else order.push(path);
  }
  return [...order, ...secondary];
}

// How many files use each name that few files define: a definition others use is a file's
// interface. A name defined in many files (`path`, `name`, `get`) says nothing of which
// definition its users mean, so it counts for none.
function referenceCounts(files: readonly MapFile[]): Map<string, number> {
  const definers = new Map<string, number>();
  for (const file of files)
    for (const name of new Set(file.definitions.map((definition) => definition.name))) definers.set(name, (definers.get(name) ?? 0) + 1);
  const counts = new Map<string, number>();
  for (const file of files) {
    for (const name of new Set(file.references)) {
      const defined = definers.get(name) ?? 0;
      if (defined > 0 && defined <= MAX_DEFINERS) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return counts;
}

// A file's definitions, most telling first: named in the task (a plain word that is also a name,
// such as `files`, much less than `replaceUrlParam`), structural (classes, functions),
// used by more files (at most as much as being structural), top-level before nested, then in
// file order.
function rankDefinitions(file: MapFile, named: ReadonlySet<string>, usedBy: ReadonlyMap<string, number>): MapDefinition[] {
  const score = (definition: MapDefinition) =>
    (named.has(definition.name) ? (/[A-Z_$]/.test(definition.name) ? 100 : 5) : 0) +
    (STRUCTURAL.has(definition.kind ?? 'function') ? 10 : 0) +
    Math.min(8, Math.log1p(usedBy.get(definition.name) ?? 0) * 2) +
    (definition.container ? 0 : 2);
  return [...file.definitions]
    .map((definition, i) => ({ definition, i, score: score(definition) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ definition }) => definition);
}

// The file's block with as many of its ranked definitions as fit in `budget` tokens (shown in
// file order); its path alone when none fits; undefined when not even that does.
function fitBlock(file: MapFile, ranked: readonly MapDefinition[], budget: number): { text: string; tokens: number } | undefined {
  const lines = ranked.length ? file.text.split('\n') : [];
  const header = printable(file.path);
  let tokens = estimateTokens(header);
  if (tokens > budget) return undefined;
  const width = String(Math.max(0, ...ranked.map((definition) => definition.line))).length;
  const chosen: { line: number; text: string }[] = [];
  for (const definition of ranked) {
    const text = `\n${definitionLine(definition, lines, width)}`;
    const cost = estimateTokens(text);
    if (tokens + cost > budget) continue;
    tokens += cost;
    chosen.push({ line: definition.line, text });
  }
  chosen.sort((a, b) => a.line - b.line);
  const text = header + chosen.map((entry) => entry.text).join('');
  return { text, tokens: estimateTokens(text) };
}

function definitionLine(definition: MapDefinition, lines: readonly string[], width: number): string {
  const source = lines[definition.line - 1];
  let signature = printable((definition.signature ?? source?.trim() ?? definition.name).replace(/\s+/g, ' '));
  if (signature.length > MAX_SIGNATURE) signature = `${signature.slice(0, MAX_SIGNATURE - 1)}…`;
  const indent = source ? Math.min(8, /^[ \t]*/.exec(source)![0].replace(/\t/g, '  ').length) : definition.container ? 2 : 0;
  return `${String(definition.line).padStart(width + 2)}│${' '.repeat(indent)}${signature}`;
}

// A file's name or line can hold control characters (a name with a newline would fake a line of
// the map): they are shown as `?`.
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
