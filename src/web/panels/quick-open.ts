// Quick open (Ctrl+P): type part of a file's path, Enter opens the best match. The files come
// from the code index's fuzzy path search (`GET /api/code/files`, instant on large workspaces);
// a server without that route (404) is answered from the files the tree has read, matched here
// the same way (the characters in order, a bonus for runs and for the file's name).
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';

export interface FileHit {
  path: string;
  /** Matched indices in `path`, for highlighting. */
  positions: number[];
}

/** How many files the list shows. */
const LIMIT = 50;

/** Whether the server has the index's route (false after its first 404: not asked again). */
let indexRoute = true;

/**
 * Files whose path matches `query` fuzzily, best first: the index's answer, or `fallback`'s
 * paths matched here when the server has no index route or its index knows no file yet.
 *
 * @example
 *   const hits = await findFiles('wbench', () => tree.knownFiles()); // → [{ path: 'src/web/editor/workbench.ts', … }]
 */
export async function findFiles(query: string, fallback: () => string[], signal?: AbortSignal): Promise<FileHit[]> {
  if (!indexRoute) return matchPaths(query, fallback()).slice(0, LIMIT);
  try {
    const { files } = await api<{ files: FileHit[] }>('GET', `/api/code/files?query=${encodeURIComponent(query)}&limit=${LIMIT}`, undefined, signal);
    // An index still building (or turned off) knows no files yet: the tree's are matched here meanwhile.
    return files.length > 0 ? files : matchPaths(query, fallback()).slice(0, LIMIT);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    indexRoute = false;
    return matchPaths(query, fallback()).slice(0, LIMIT);
  }
}

/** The paths matching `query` (its characters in order, case-insensitive), best first. */
export function matchPaths(query: string, paths: string[]): FileHit[] {
  const wanted = query.replace(/\s+/g, '').toLowerCase();
  if (!wanted) return [...paths].sort().map((path) => ({ path, positions: [] }));
  const scored: { hit: FileHit; score: number }[] = [];
  for (const path of paths) {
    const lower = path.toLowerCase();
    const nameStart = lower.lastIndexOf('/') + 1;
    const positions: number[] = [];
    let score = 0;
    let from = 0;
    for (const char of wanted) {
      const at = lower.indexOf(char, from);
      if (at < 0) break;
      score += (positions.at(-1) === at - 1 ? 3 : 1) + (at >= nameStart ? 2 : 0) + (at === nameStart || lower[at - 1] === '/' ? 2 : 0);
      positions.push(at);
      from = at + 1;
    }
    if (positions.length === wanted.length) scored.push({ hit: { path, positions }, score: score - path.length / 100 });
  }
  return scored.sort((a, b) => b.score - a.score).map(({ hit }) => hit);
}

/**
 * The quick-open box (the palette's look).
 *
 * @example
 *   const quickOpen = new QuickOpen((path) => workbench.open(path), () => tree.knownFiles(), notify);
 *   document.body.append(quickOpen.element);
 *   quickOpen.open();
 */
export class QuickOpen {
  readonly element = h('div', { class: 'palette-backdrop quick-open', hidden: true });
  private readonly input = h('input', {
    class: 'palette-input',
    placeholder: 'Search files by name',
    'aria-label': 'File name',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  private readonly list = h('ul', { class: 'palette-list', role: 'listbox', 'aria-label': 'Files', tabindex: 0 });
  private hits: FileHit[] = [];
  private chosen = 0;
  private asking: AbortController | undefined;

  constructor(
    private readonly openFile: (path: string) => unknown,
    private readonly knownFiles: () => string[],
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
  ) {
    this.element.append(h('div', { class: 'palette', role: 'dialog', 'aria-label': 'Quick open' }, this.input, this.list));
    this.element.addEventListener('mousedown', (event) => {
      if (event.target === this.element) this.close();
    });
    this.input.addEventListener('input', () => void this.search());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
      else if (event.key === 'ArrowDown') this.move(1);
      else if (event.key === 'ArrowUp') this.move(-1);
      else if (event.key === 'Enter') this.choose();
      else return;
      event.preventDefault();
    });
  }

  open(): void {
    this.input.value = '';
    this.element.hidden = false;
    this.input.focus();
    void this.search();
  }

  close(): void {
    this.asking?.abort();
    this.element.hidden = true;
  }

  private async search(): Promise<void> {
    this.asking?.abort();
    const asking = (this.asking = new AbortController());
    const query = this.input.value;
    try {
      const hits = await findFiles(query, this.knownFiles, asking.signal);
      if (asking.signal.aborted) return;
      this.hits = hits;
      this.chosen = 0;
      this.list.dataset['query'] = query;
      this.render();
    } catch (error) {
      if (!asking.signal.aborted) this.notify(`Quick open: ${inWords(error)}`, 'warning');
    }
  }

  private move(by: number): void {
    if (this.hits.length === 0) return;
    this.chosen = (this.chosen + by + this.hits.length) % this.hits.length;
    this.render();
  }

  private choose(index = this.chosen): void {
    const hit = this.hits[index];
    if (!hit) return;
    this.close();
    void this.openFile(hit.path);
  }

  private render(): void {
    fill(
      this.list,
      ...this.hits.map((hit, index) => {
        const slash = hit.path.lastIndexOf('/');
        const text = (from: number, to: number) => markedRuns(hit.path, hit.positions, from, to);
        return h(
          'li',
          {
            class: `palette-item${index === this.chosen ? ' chosen' : ''}`,
            role: 'option',
            'aria-selected': index === this.chosen ? 'true' : 'false',
            'data-path': hit.path,
            onmousedown: (event: Event) => {
              event.preventDefault();
              this.choose(index);
            },
          },
          h('span', { class: 'palette-title' }, ...text(slash + 1, hit.path.length)),
          h('span', { class: 'palette-source' }, ...text(0, Math.max(slash, 0))),
        );
      }),
      this.hits.length === 0 ? h('li', { class: 'muted' }, 'No file matches.') : null,
    );
  }
}

/**
 * `path` from `from` to `to` as text and <mark>s, a run of matched characters in one mark and
 * the text between in one string (a node per character made a list of 50 paths thousands of
 * nodes, on every key).
 */
function markedRuns(path: string, positions: readonly number[], from: number, to: number): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  let at = from;
  for (let i = 0; i < positions.length; i++) {
    const start = positions[i]!;
    if (start < from || start >= to) continue;
    let end = start + 1;
    while (i + 1 < positions.length && positions[i + 1] === end && end < to) {
      end++;
      i++;
    }
    if (start > at) parts.push(path.slice(at, start));
    parts.push(h('mark', {}, path.slice(start, end)));
    at = end;
  }
  if (at < to) parts.push(path.slice(at, to));
  return parts;
}
