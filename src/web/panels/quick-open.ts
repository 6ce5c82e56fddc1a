// Quick open (Ctrl+P): type part of a file's path, Enter opens the best match. The page holds
// the code index's list of paths (`GET /api/code/paths`, asked again once files come or go) and
// scores it on each key itself, with the server's own scorer (src/matching): no request per
// key, so the list is drawn in the frame after the key, not after a round trip the browser
// schedules behind that frame. Until the list is there (the first keys after the window opens,
// or after a change) each key asks the index (`GET /api/code/files`); while the index lists
// nothing (off, or still building) the files the tree has read are scored the same way.
import { PathSearch } from '../../matching/path-search.ts';
import { api, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';

export interface FileHit {
  path: string;
  /** Matched indices in `path`, for highlighting. */
  positions: number[];
}

/** How many files the list shows. */
const LIMIT = 50;

/** The events after which the index's list of paths may have changed. */
const LIST_CHANGES = ['file:create', 'file:rename', 'file:delete', 'disk:change', 'index:progress'];

/**
 * The code index's list of the workspace's paths, kept in the page and scored there.
 *
 * @example
 *   const paths = new IndexedPaths(events);
 *   paths.current()?.find('wbench', 50); // undefined until the list has come; it is asked for then
 */
export class IndexedPaths {
  private search: PathSearch<{ path: string }> | undefined;
  /** Counts the changes heard; the list is current when it was asked for after the last. */
  private changes = 0;
  private listedAfter = -1;
  private loading = false;

  constructor(events: EventStream) {
    const changed = () => void this.changes++;
    for (const type of LIST_CHANGES) events.on(type, changed);
    // A save may be a new file (an agent's create_file is told as a save).
    events.on('file:save', (event) => {
      if (!this.search?.get(String(event.data['path']))) changed();
    });
    events.onResync(changed);
  }

  /** The list's search when it is current and not empty; otherwise undefined, and it is asked for. */
  current(): PathSearch<{ path: string }> | undefined {
    if (this.listedAfter === this.changes) return this.search;
    this.load();
    return undefined;
  }

  private load(): void {
    if (this.loading) return;
    this.loading = true;
    const asked = this.changes;
    api<{ paths: string[] }>('GET', '/api/code/paths')
      .then(({ paths }) => {
        this.search = paths.length > 0 ? new PathSearch(paths.map((path) => ({ path }))) : undefined;
        this.listedAfter = asked;
      })
      // Not listed (rate limited, the server restarting): keys ask the index until a later try lists them.
      .catch(() => undefined)
      .finally(() => (this.loading = false));
  }
}

/**
 * Files whose path matches `query` fuzzily, best first: from the page's list of the index's
 * paths when it has it, else the index's answer, else `fallback`'s paths (the tree's).
 *
 * @example
 *   const hits = await findFiles('wbench', paths, () => tree.knownFiles()); // → [{ path: 'src/web/editor/workbench.ts', … }]
 */
export async function findFiles(query: string, paths: IndexedPaths, fallback: () => string[], signal?: AbortSignal): Promise<FileHit[]> {
  const listed = paths.current();
  if (listed) return hitsOf(listed, query);
  const { files } = await api<{ files: FileHit[] }>('GET', `/api/code/files?query=${encodeURIComponent(query)}&limit=${LIMIT}`, undefined, signal);
  // An index still building (or turned off) knows no files yet: the tree's are matched here meanwhile.
  return files.length > 0 ? files : hitsOf(new PathSearch(fallback().map((path) => ({ path }))), query);
}

function hitsOf(search: PathSearch<{ path: string }>, query: string): FileHit[] {
  return search.find(query, LIMIT).map(({ item, positions }) => ({ path: item.path, positions }));
}

/**
 * The quick-open box (the palette's look).
 *
 * @example
 *   const quickOpen = new QuickOpen((path) => workbench.open(path), new IndexedPaths(events), () => tree.knownFiles(), notify);
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
    private readonly paths: IndexedPaths,
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
      const hits = await findFiles(query, this.paths, this.knownFiles, asking.signal);
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
