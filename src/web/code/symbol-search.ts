// Symbol search in a quick pick (quick open's look): Ctrl+T finds definitions across the
// workspace by part of their name, Ctrl+Shift+O lists the active file's in order and filters
// them as you type. The code index answers (`GET /api/code/symbols`, the `editor` view: unsaved
// text counts); Enter or a click opens the definition at its name.
import type { CodeSymbols } from '../../contracts/code-resources.ts';
import { api, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { CodeRangeLike } from './references-panel.ts';

export type SymbolHit = CodeSymbols['symbols'][number];

const LIMIT = 100;

export interface SymbolSearchHost {
  reveal(path: string, range: CodeRangeLike): unknown;
  /** The active document's path (Ctrl+Shift+O lists its symbols). */
  activePath(): string | undefined;
  /** Why the search may find nothing (the index is off, or still building), or undefined. */
  indexWords(): string | undefined;
  notify(text: string, level?: 'info' | 'warning' | 'error'): void;
}

/**
 * The symbol quick pick.
 *
 * @example
 *   const symbols = new SymbolSearch(host);
 *   document.body.append(symbols.element);
 *   symbols.open('workspace'); // Ctrl+T
 *   symbols.open('file');      // Ctrl+Shift+O
 */
export class SymbolSearch {
  readonly element = h('div', { class: 'palette-backdrop symbol-search', hidden: true });
  private readonly input = h('input', { class: 'palette-input', 'aria-label': 'Symbol name', autocomplete: 'off', spellcheck: 'false' });
  private readonly list = h('ul', { class: 'palette-list', role: 'listbox', 'aria-label': 'Symbols', tabindex: 0 });
  private readonly dialog = h('div', { class: 'palette', role: 'dialog', 'aria-label': 'Go to symbol' }, this.input, this.list);
  private hits: SymbolHit[] = [];
  private chosen = 0;
  private scope: 'workspace' | 'file' = 'workspace';
  private path: string | undefined;
  private asking: AbortController | undefined;
  private back: HTMLElement | null = null;

  constructor(private readonly host: SymbolSearchHost) {
    this.element.append(this.dialog);
    this.element.addEventListener('mousedown', (event) => {
      if (event.target === this.element) this.close();
    });
    this.input.addEventListener('input', () => void this.search());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close(true);
      else if (event.key === 'ArrowDown') this.move(1);
      else if (event.key === 'ArrowUp') this.move(-1);
      else if (event.key === 'Enter') this.choose();
      else return;
      event.preventDefault();
    });
  }

  open(scope: 'workspace' | 'file'): void {
    this.scope = scope;
    this.path = scope === 'file' ? this.host.activePath() : undefined;
    if (scope === 'file' && !this.path) {
      this.host.notify('Open a file to go to its symbols.', 'info');
      return;
    }
    this.back = document.activeElement as HTMLElement | null;
    this.dialog.setAttribute('aria-label', scope === 'file' ? `Go to symbol in ${this.path}` : 'Go to symbol in workspace');
    this.input.placeholder = scope === 'file' ? `Symbols of ${this.path} (Ctrl+Shift+O)` : 'Search symbols in the workspace (Ctrl+T)';
    this.input.value = '';
    this.hits = [];
    this.element.hidden = false;
    this.input.focus();
    void this.search();
  }

  close(refocus = false): void {
    this.asking?.abort();
    this.element.hidden = true;
    if (refocus) this.back?.focus();
  }

  private async search(): Promise<void> {
    this.asking?.abort();
    const asking = (this.asking = new AbortController());
    const query = this.input.value.trim();
    if (this.scope === 'workspace' && query === '') {
      this.hits = [];
      this.render('Type part of a name: a class, a function, a type…');
      return;
    }
    const params = new URLSearchParams({ query, limit: String(LIMIT), view: 'editor' });
    if (this.path) params.set('path', this.path);
    try {
      const { symbols } = await api<CodeSymbols>('GET', `/api/code/symbols?${params}`, undefined, asking.signal);
      if (asking.signal.aborted) return;
      this.hits = symbols;
      this.chosen = 0;
      this.list.dataset['query'] = query;
      this.render(this.host.indexWords() ?? (this.scope === 'file' ? 'No symbol in this file matches.' : 'No symbol matches.'));
    } catch (error) {
      if (asking.signal.aborted) return;
      this.hits = [];
      this.render(`Symbols: ${inWords(error)}`);
    }
  }

  private move(by: number): void {
    if (this.hits.length === 0) return;
    this.chosen = (this.chosen + by + this.hits.length) % this.hits.length;
    this.render('');
    this.list.querySelector('.chosen')?.scrollIntoView({ block: 'nearest' });
  }

  private choose(index = this.chosen): void {
    const hit = this.hits[index];
    if (!hit) return;
    this.close();
    void this.host.reveal(hit.path, hit.nameRange);
  }

  private render(emptyWords: string): void {
    fill(
      this.list,
      ...this.hits.map((hit, index) => {
        const marked = new Set(hit.positions);
        return h(
          'li',
          {
            class: `palette-item symbol-item${index === this.chosen ? ' chosen' : ''}`,
            role: 'option',
            'aria-selected': index === this.chosen ? 'true' : 'false',
            'data-path': hit.path,
            'data-name': hit.name,
            onmousedown: (event: Event) => {
              event.preventDefault();
              this.choose(index);
            },
          },
          h(
            'span',
            { class: 'palette-title' },
            h('span', { class: `symbol-kind kind-${hit.kind}` }, hit.kind),
            ' ',
            ...[...hit.name].map((char, offset) => (marked.has(offset) ? h('mark', {}, char) : char)),
            hit.container ? h('span', { class: 'muted' }, ` — ${hit.container}`) : null,
          ),
          h('span', { class: 'palette-source' }, this.scope === 'file' ? `Ln ${hit.nameRange.start.line}` : `${hit.path}:${hit.nameRange.start.line}`),
        );
      }),
      this.hits.length === 0 && emptyWords ? h('li', { class: 'muted palette-empty' }, emptyWords) : null,
    );
  }
}
