// Locate: given a task in words (an issue, a commit message, a request), the workspace's files
// most likely to need a change, each with the reasons it ranks where it does.
//
// Each file gets a few signals, each scaled to 0..1 by its best file, and the score is their
// weighted sum (the weights below: one set for every repository, chosen on the localization
// benchmark and checked on repositories it does not hold; docs/code-intelligence.md#locate):
//   lexical   BM25F over the file's path, the names it defines and its text;
//   path      folders and file names the task spells out ("trie-router", "serve static");
//   symbols   definitions of names the task writes (replaceUrlParam, RequestContext);
//   mention   the file's own name in the task (mod.ts, flask/helpers.py);
//   history   how often it changed in the last 100 commits, and how lately;
//   co-change how often it changed together with the best lexical matches;
//   graph     personalised PageRank over the definition–reference graph, restarting at the
//             lexical matches: what the relevant files use, and what uses them;
// minus a penalty for tests and for generated files (bundles, build output), which repeat the
// words of the source they check or copy.
import { Bm25Index } from './bm25.ts';
import { fileGraph, type FileEdge, type GraphFile, type SymbolDefinition } from './file-graph.ts';
import { isGeneratedPath, isTestPath } from './file-roles.ts';
import { changeStats, coChanges, RECENT_COMMITS, type ChangeHistory } from './history.ts';
import { personalizedPageRank } from './pagerank.ts';
import { namedIdentifiers, splitTerms, stemmedTerms, stemTerm } from './terms.ts';

export type { SymbolDefinition } from './file-graph.ts';
export type { ChangeHistory, HistoryCommit } from './history.ts';

/** What locate needs of one file of the workspace. */
export interface LocateFile extends GraphFile {
  /** Path relative to the workspace, `/`-separated. */
  path: string;
  /** The file's text. */
  text: string;
  definitions: readonly SymbolDefinition[];
  references: readonly string[];
  imports: readonly string[];
}

export interface LocateInput {
  /** The task in words (its first MAX_TASK_CHARS characters are read). */
  task: string;
  files: readonly LocateFile[];
  /** Recent commits, newest first; absent or empty without git. */
  history?: ChangeHistory;
  /** How many files to return (10). */
  limit?: number;
  /** Weights other than LOCATE_WEIGHTS (the benchmark's ablations). */
  weights?: Partial<Record<Signal, number>>;
}

export interface LocatedFile {
  path: string;
  /** The weighted sum of the signals, ×10: comparable within one answer, not across tasks. */
  score: number;
  /** Why, strongest first: `term "router" in path`, `defines RegExpRouter (named in the task)`… */
  reasons: string[];
}

/** The signals' weights. Tests and generated files take a penalty (negative weights). */
export const LOCATE_WEIGHTS = {
  lexical: 0.7,
  path: 0.4,
  symbols: 0.3,
  mention: 0.5,
  recentChanges: 0.1,
  recency: 0.05,
  coChange: 0.15,
  graph: 0.05,
  test: -0.6,
  generated: -0.75,
} as const;

/** One of the signals locate weighs. */
export type Signal = keyof typeof LOCATE_WEIGHTS;

/** BM25F field weights: a term in the path or in a defined name counts more than one in the text. */
const FIELD_WEIGHTS = { path: 2, names: 1, text: 1 };
/** The lexical matches that seed co-change and the graph. */
const SEEDS = 10;
/** A path name of more words than this (rare) is not looked for in the task. */
const MAX_SEGMENT_TERMS = 6;
/** The task's characters read: the rest of a longer text is left out. */
export const MAX_TASK_CHARS = 20_000;
/** The weight of an edge from a definer back to its user, against the user's edge to it. */
const REVERSE_EDGE = 0.5;
/** A name defined in more files than this is too common to point at one. */
const MAX_NAMED_DEFINERS = 20;
/** How much a named plain word (`render`) counts against a name only code writes (`renderToString`). */
const PLAIN_WORD_NAME = 0.3;
/** Words of prose that say nothing of where a change goes: scored (BM25 weighs them down), never given as reasons. */
const STOP_WORDS = new Set(
  'a an and are as at be been but by can do does for from has have if in into is it its not of on or so than that the their then there these this those to was were when which while will with'.split(
    ' ',
  ),
);
/** A signal contributing less than this share of the file's score is not given as a reason. */
const REASON_SHARE = 0.05;

/**
 * The files most likely to need a change for `task`, best first, with reasons.
 *
 * @example
 * locate({ task: 'fix(router): trailing slash', files, history }).slice(0, 1)
 * // [{ path: 'src/router.ts', score: 9.1, reasons: ['term "router" in path', 'changed in 12 of the last 100 commits'] }]
 */
export function locate(input: LocateInput): LocatedFile[] {
  const { files } = input;
  const limit = input.limit ?? 10;
  if (files.length === 0 || limit <= 0) return [];
  const weights = { ...LOCATE_WEIGHTS, ...input.weights };
  const { scaled, reasons } = locateSignals(input);
  const scores = new Float64Array(files.length);
  for (const [signal, values] of scaled) for (let i = 0; i < files.length; i++) scores[i]! += weights[signal] * values[i]!;
  const order = [...scores.keys()]
    .filter((i) => hasEvidence(scaled, weights, i))
    .sort((a, b) => scores[b]! - scores[a]! || (files[a]!.path < files[b]!.path ? -1 : 1));
  return order
    .slice(0, limit)
    .map((i) => ({ path: files[i]!.path, score: round(scores[i]! * 10), reasons: reasonsFor(i, scaled, weights, reasons[i], scores[i]!) }));
}

/** Each signal of each file (by position in `files`), scaled to 0..1, and the reasons each signal gives. */
export interface LocateSignals {
  scaled: Map<Signal, Float64Array>;
  reasons: (Map<Signal, string[]> | undefined)[];
}

/**
 * The signals locate weighs, before they are weighed (the localization benchmark reads them to
 * report what each contributes).
 *
 * @example locateSignals({ task: 'fix the router', files }).scaled.get('lexical') // Float64Array [1, 0.4, …]
 */
export function locateSignals(input: LocateInput): LocateSignals {
  const { files } = input;
  const task = input.task.slice(0, MAX_TASK_CHARS);
  const queryTerms = stemmedTerms(task);
  // Reasons show the task's own words, not their stems ("authentication", not "authenticat").
  const spelled = new Map<string, string>();
  for (const term of splitTerms(task)) if (!spelled.has(stemTerm(term))) spelled.set(stemTerm(term), term);
  const words = (terms: readonly string[]) => terms.map((term) => spelled.get(term) ?? term).filter(telling);
  const signals = new Map<Signal, Float64Array>();
  const reasonsOf: Map<Signal, string[]>[] = [];
  const explain: Explain = (signal, file, text) => {
    const map = (reasonsOf[file] ??= new Map());
    const list = map.get(signal);
    if (list) list.push(text);
    else map.set(signal, [text]);
  };

  // Lexical relevance.
  const pathTerms = files.map((file) => stemmedTerms(file.path));
  const nameTerms = files.map((file) => file.definitions.flatMap((definition) => stemmedTerms(definition.name)));
  const bm25 = new Bm25Index({ weights: FIELD_WEIGHTS });
  files.forEach((file, i) => bm25.add({ path: pathTerms[i], names: nameTerms[i], text: stemmedTerms(file.text) }));
  const lexical = new Float64Array(files.length);
  for (const hit of bm25.search(queryTerms)) {
    lexical[hit.doc] = hit.score;
    const inPath = new Set(pathTerms[hit.doc]);
    const inPathHits = hit.terms.filter((term) => inPath.has(term));
    const elsewhere = hit.terms.filter((term) => !inPath.has(term));
    if (words(inPathHits).length) explain('lexical', hit.doc, `${plural('term', words(inPathHits))} in path`);
    if (words(elsewhere).length)
      explain('lexical', hit.doc, `${plural('term', words(elsewhere))} in ${new Set(nameTerms[hit.doc]).has(elsewhere[0]!) ? 'names' : 'text'}`);
  }
  signals.set('lexical', lexical);

  signals.set('path', pathSegments(files, task, queryTerms, explain));
  signals.set('symbols', namedSymbols(files, task, explain));
  signals.set('mention', mentions(files, task, explain));

  // History.
  const history = input.history?.commits.length ? input.history : undefined;
  const seeds = topIndices(lexical, SEEDS);
  if (history) {
    const stats = changeStats(history);
    const recent = new Float64Array(files.length);
    const recency = new Float64Array(files.length);
    files.forEach((file, i) => {
      const stat = stats.get(file.path);
      if (!stat) return;
      recent[i] = Math.log1p(stat.recentChanges);
      recency[i] = stat.recency;
      if (stat.recentChanges)
        explain('recentChanges', i, `changed in ${stat.recentChanges} of the last ${Math.min(RECENT_COMMITS, history.commits.length)} commits`);
      if (stat.recency > 0.9) explain('recency', i, 'changed recently');
    });
    signals.set('recentChanges', recent);
    signals.set('recency', recency);
    signals.set('coChange', coChange(files, history, seeds, lexical, stats, explain));
  }

  signals.set('graph', graphRank(files, lexical, seeds, explain));

  const test = new Float64Array(files.length);
  const generated = new Float64Array(files.length);
  files.forEach((file, i) => {
    if (isTestPath(file.path)) test[i] = 1;
    if (isGeneratedPath(file.path, file.text)) generated[i] = 1;
  });
  signals.set('test', test);
  signals.set('generated', generated);

  const scaled = new Map<Signal, Float64Array>();
  for (const [signal, values] of signals) scaled.set(signal, signal === 'test' || signal === 'generated' ? values : scaleToBest(values));
  return { scaled, reasons: reasonsOf };
}

// A file the task speaks for through a positive signal. How often and how lately a file changed
// say nothing of the task: alone, they do not make a file an answer.
function hasEvidence(scaled: Map<Signal, Float64Array>, weights: Record<Signal, number>, i: number): boolean {
  for (const [signal, values] of scaled) if (weights[signal] > 0 && !PRIORS.has(signal) && values[i]! > 0) return true;
  return false;
}

const PRIORS = new Set<Signal>(['recentChanges', 'recency']);

type Explain = (signal: Signal, file: number, text: string) => void;

// Folders and file names (without extension) the task spells out, word for word: "trie-router"
// matches the folder trie-router/, "serve static" the folder serve-static/. A name few files
// share says more (its inverse document frequency), and a longer one more than a short one.
function pathSegments(files: readonly LocateFile[], task: string, queryTerms: readonly string[], explain: Explain): Float64Array {
  // Every run of up to MAX_SEGMENT_TERMS consecutive terms of the task, for lookups; and runs of
  // its words written together, for names that are (pagerank.ts for "PageRank", readfile/ for
  // "read file"), with how many words each joins.
  const runs = new Set<string>();
  for (let start = 0; start < queryTerms.length; start++) {
    for (let end = start + 1; end <= Math.min(queryTerms.length, start + MAX_SEGMENT_TERMS); end++) runs.add(queryTerms.slice(start, end).join(' '));
  }
  const words = splitTerms(task);
  const joined = new Map<string, number>();
  for (let start = 0; start < words.length; start++) {
    for (let end = start + 2; end <= Math.min(words.length, start + MAX_SEGMENT_TERMS); end++) joined.set(words.slice(start, end).join(''), end - start);
  }
  const segmentsOf = files.map((file) => {
    const parts = file.path.split('/');
    parts[parts.length - 1] = parts[parts.length - 1]!.replace(/\.[^.]*$/, '');
    const segments = new Map<string, string>();
    for (const part of parts) {
      const terms = stemmedTerms(part).join(' ');
      if (terms && !segments.has(terms)) segments.set(terms, part);
    }
    return segments;
  });
  const frequency = new Map<string, number>();
  for (const segments of segmentsOf) for (const terms of segments.keys()) frequency.set(terms, (frequency.get(terms) ?? 0) + 1);
  const scores = new Float64Array(files.length);
  segmentsOf.forEach((segments, i) => {
    const matched: string[] = [];
    for (const [terms, part] of segments) {
      const length = runs.has(terms) ? terms.split(' ').length : (joined.get(part.toLowerCase()) ?? 0);
      if (length === 0) continue;
      scores[i]! += Math.log(1 + files.length / frequency.get(terms)!) * length;
      // "router" inside a matched "trie-router" is not worth saying twice.
      matched.push(part);
    }
    const shown = matched.filter(
      (part) => !matched.some((other) => other !== part && ` ${stemmedTerms(other).join(' ')} `.includes(` ${stemmedTerms(part).join(' ')} `)),
    );
    if (shown.length) explain('path', i, `${shown.length > 1 ? 'path names' : 'path name'} ${shown.map((part) => `"${part}"`).join(', ')} in the task`);
  });
  return scores;
}

// Definitions of the names the task writes as they are spelt in code. A name defined in few
// files points at them more strongly, and a name only code would write (replaceUrlParam,
// send_file, HTTPException) more than a plain word that is also a name (render, key).
function namedSymbols(files: readonly LocateFile[], task: string, explain: Explain): Float64Array {
  const named = new Set(namedIdentifiers(task));
  const definers = new Map<string, number[]>();
  files.forEach((file, i) => {
    for (const definition of file.definitions) {
      if (!named.has(definition.name)) continue;
      const list = definers.get(definition.name) ?? [];
      if (list[list.length - 1] !== i) list.push(i);
      definers.set(definition.name, list);
    }
  });
  const scores = new Float64Array(files.length);
  for (const [name, list] of definers) {
    if (list.length > MAX_NAMED_DEFINERS) continue;
    const weight = /[A-Z_$]/.test(name) ? 1 : PLAIN_WORD_NAME;
    for (const i of list) {
      scores[i]! += weight / list.length;
      explain('symbols', i, `defines ${name} (named in the task)`);
    }
  }
  return scores;
}

// The file's path, or its name with extension, written in the task (`src/mod.ts`, `mod.ts`).
function mentions(files: readonly LocateFile[], task: string, explain: Explain): Float64Array {
  const written = new Set<string>();
  const names = new Set<string>();
  for (const match of task.matchAll(/[\w.$@/-]+/g)) {
    const token = match[0].replace(/^\.\//, '').replace(/[.,:;-]+$/, '');
    written.add(token);
    names.add(token.slice(token.lastIndexOf('/') + 1));
  }
  const scores = new Float64Array(files.length);
  files.forEach((file, i) => {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    if (!name.includes('.') || name.length < 4) return;
    const score = written.has(file.path) ? 1 : names.has(name) ? 0.5 : 0;
    if (score === 0) return;
    scores[i] = score;
    explain('mention', i, `${score === 1 ? 'path' : 'file name'} written in the task`);
  });
  return scores;
}

// Files that changed together with the best lexical matches, weighted by the match's score and
// by how telling a shared commit is (a file changed in every commit tells nothing).
function coChange(
  files: readonly LocateFile[],
  history: ChangeHistory,
  seeds: readonly number[],
  lexical: Float64Array,
  stats: ReturnType<typeof changeStats>,
  explain: Explain,
): Float64Array {
  const scores = new Float64Array(files.length);
  if (seeds.length === 0) return scores;
  const best = lexical[seeds[0]!]!;
  const index = new Map(files.map((file, i) => [file.path, i]));
  const partners = coChanges(
    history,
    seeds.map((seed) => files[seed]!.path),
  );
  const strongest = new Map<number, { seed: string; shared: number; weight: number }>();
  for (const seed of seeds) {
    const path = files[seed]!.path;
    const changes = stats.get(path)?.changes ?? 0;
    if (changes === 0) continue;
    const share = lexical[seed]! / best / Math.sqrt(changes);
    for (const [other, shared] of partners.get(path) ?? []) {
      const i = index.get(other);
      if (i === undefined) continue;
      const weight = share * shared;
      scores[i]! += weight;
      const current = strongest.get(i);
      if (!current || weight > current.weight) strongest.set(i, { seed: path, shared, weight });
    }
  }
  for (const [i, { seed, shared }] of strongest) explain('coChange', i, `changed with ${seed} in ${shared} commit${shared === 1 ? '' : 's'}`);
  return scores;
}

// Personalised PageRank over the definition–reference graph, restarting at the lexical matches.
function graphRank(files: readonly LocateFile[], lexical: Float64Array, seeds: readonly number[], explain: Explain): Float64Array {
  if (seeds.length === 0) return new Float64Array(files.length);
  const edges = fileGraph(files);
  if (edges.length === 0) return new Float64Array(files.length);
  // Rank flows both ways: to what the relevant files use, and (at half the weight) to what uses them.
  const both = [...edges, ...edges.map((edge) => ({ from: edge.to, to: edge.from, weight: edge.weight * REVERSE_EDGE }))];
  const rank = personalizedPageRank(files.length, both, lexical);
  // The reason: the seed a file is most strongly linked to, in either direction.
  const seedSet = new Set(seeds);
  const link = new Map<number, { edge: FileEdge; seed: number; uses: boolean }>();
  for (const edge of edges) {
    for (const [file, seed, uses] of [
      [edge.to, edge.from, false],
      [edge.from, edge.to, true],
    ] as const) {
      if (!seedSet.has(seed) || seedSet.has(file)) continue;
      const current = link.get(file);
      if (!current || edge.weight * lexical[seed]! > current.edge.weight * lexical[current.seed]!) link.set(file, { edge, seed, uses });
    }
  }
  for (const [i, { edge, seed, uses }] of link) {
    const other = files[seed]!.path;
    const text = edge.name
      ? uses
        ? `uses ${edge.name} from ${other}`
        : `defines ${edge.name}, used by ${other}`
      : uses
        ? `imports ${other}`
        : `imported by ${other}`;
    explain('graph', i, text);
  }
  return rank;
}

function reasonsFor(
  i: number,
  scaled: Map<Signal, Float64Array>,
  weights: Record<Signal, number>,
  reasons: Map<Signal, string[]> | undefined,
  score: number,
): string[] {
  const contributions = [...scaled]
    .map(([signal, values]) => [signal, weights[signal] * values[i]!] as const)
    .filter(([, value]) => value > 0 && value >= REASON_SHARE * Math.max(score, 1e-9))
    .sort((a, b) => b[1] - a[1]);
  // A path name the task spells out says more than the same words found in the path.
  const spelled = contributions.some(([signal]) => signal === 'path');
  const texts = contributions.flatMap(([signal]) =>
    (reasons?.get(signal) ?? []).filter((text) => !(spelled && signal === 'lexical' && text.endsWith(' in path'))),
  );
  if (scaled.get('test')![i]) texts.push('a test (ranked lower)');
  if (scaled.get('generated')![i]) texts.push('generated or bundled (ranked lower)');
  return texts.slice(0, 6);
}

function scaleToBest(values: Float64Array): Float64Array {
  let best = 0;
  for (const value of values) if (value > best) best = value;
  if (best <= 0) return values;
  return values.map((value) => value / best);
}

function topIndices(values: Float64Array, count: number): number[] {
  return [...values.keys()]
    .filter((i) => values[i]! > 0)
    .sort((a, b) => values[b]! - values[a]!)
    .slice(0, count);
}

function plural(word: string, terms: readonly string[]): string {
  const shown = terms.slice(0, 4).map((term) => `"${term}"`);
  return `${word}${terms.length > 1 ? 's' : ''} ${shown.join(', ')}${terms.length > 4 ? ` and ${terms.length - 4} more` : ''}`;
}

function telling(term: string): boolean {
  return term.length > 1 && !STOP_WORDS.has(term);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
