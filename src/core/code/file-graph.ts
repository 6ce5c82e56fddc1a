// The graph of files that locate and the repository map rank over: an edge from a file to each
// file defining a name it uses (and to each file it imports). A name defined in many files
// (`get`, `init`, `options`) says little about which one is meant, so it links nothing;
// compound names (`replaceUrlParam`, `send_file`) say more than short plain words.
import type { WeightedEdge } from './pagerank.ts';

/** A definition in a file: its name and 1-based line. */
export interface SymbolDefinition {
  name: string;
  line: number;
  /** function, class, method, type… as the index names it. */
  kind?: string;
}

/** What the graph needs of a file. */
export interface GraphFile {
  path: string;
  definitions: readonly SymbolDefinition[];
  /** Names the file uses (calls, types, reads); repeats count. */
  references: readonly string[];
  /** Workspace paths of the files it imports. */
  imports: readonly string[];
}

/** A name defined in more files than this links none of them. */
export const MAX_DEFINERS = 5;

export interface FileEdge extends WeightedEdge {
  /** The name that links the two files most, or undefined for an import alone. */
  name?: string;
  /** The edge stands for an import. */
  imported: boolean;
}

/**
 * The edges between `files` (numbered by position): user → definer, weighted by
 * √(uses of the name) × how telling the name is, plus 1 for an import.
 *
 * @example
 * fileGraph([{ path: 'a.ts', definitions: [], references: ['parseUrl'], imports: [] },
 *            { path: 'b.ts', definitions: [{ name: 'parseUrl', line: 1 }], references: [], imports: [] }])
 * // [{ from: 0, to: 1, weight: 2, name: 'parseUrl', imported: false }]
 */
export function fileGraph(files: readonly GraphFile[]): FileEdge[] {
  // Locate and the map both ask for the graph of one list of files: it is built once.
  const known = built.get(files);
  if (known) return known;
  const edges = buildGraph(files);
  built.set(files, edges);
  return edges;
}

const built = new WeakMap<readonly GraphFile[], FileEdge[]>();

function buildGraph(files: readonly GraphFile[]): FileEdge[] {
  const index = new Map(files.map((file, i) => [file.path, i]));
  const definers = new Map<string, number[]>();
  files.forEach((file, i) => {
    for (const definition of file.definitions) {
      const list = definers.get(definition.name);
      if (!list) definers.set(definition.name, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    }
  });
  const edges = new Map<string, FileEdge & { best: number }>();
  const add = (from: number, to: number, weight: number, name: string | undefined) => {
    const key = `${from}:${to}`;
    const edge = edges.get(key);
    if (!edge) {
      edges.set(key, { from, to, weight, name, imported: name === undefined, best: name === undefined ? 0 : weight });
      return;
    }
    edge.weight += weight;
    if (name === undefined) edge.imported = true;
    else if (weight > edge.best) {
      edge.best = weight;
      edge.name = name;
    }
  };
  files.forEach((file, from) => {
    const uses = new Map<string, number>();
    for (const name of file.references) uses.set(name, (uses.get(name) ?? 0) + 1);
    for (const [name, count] of uses) {
      const targets = definers.get(name);
      if (!targets || targets.length > MAX_DEFINERS) continue;
      const weight = Math.sqrt(count) * nameWeight(name);
      for (const to of targets) if (to !== from) add(from, to, weight, name);
    }
    for (const target of file.imports) {
      const to = index.get(target);
      if (to !== undefined && to !== from) add(from, to, 1, undefined);
    }
  });
  return [...edges.values()].map(({ best: _best, ...edge }) => edge);
}

/** How much a name tells: compound names of 8 characters or more are specific, short ones less so, `_private` ones little. */
export function nameWeight(name: string): number {
  let weight = 1;
  const compound = /[a-z][A-Z]|[A-Za-z][_-][A-Za-z]/.test(name);
  if (compound && name.length >= 8) weight *= 2;
  if (name.length < 4) weight *= 0.25;
  if (name.startsWith('_')) weight *= 0.25;
  return weight;
}
