// Find and replace in the open file (Ctrl+F, Ctrl+H): CodeMirror's search state and commands
// behind a panel laid out as VS Code's — the query with its three toggles (match case, whole
// word, regular expression), the count of matches, previous / next, and a replace row that
// Ctrl+H or the chevron shows. Alt+C, Alt+W and Alt+R flip the toggles from the keyboard.
import {
  closeSearchPanel,
  findNext,
  findPrevious,
  getSearchQuery,
  openSearchPanel,
  replaceAll,
  replaceNext,
  search,
  SearchQuery,
  setSearchQuery,
} from '@codemirror/search';
import type { EditorState, Extension } from '@codemirror/state';
import { runScopeHandlers, type EditorView, type Panel, type ViewUpdate } from '@codemirror/view';
import { h } from '../dom.ts';

/** The three toggles of a find: match case, whole word, regular expression. */
export type FindToggle = 'caseSensitive' | 'wholeWord' | 'regexp';

/**
 * The toggles' buttons as VS Code draws them (Aa, ab, .*), `aria-pressed` false; a click calls
 * `flip`. The editor's find panel and the Search view share them, with their keys (Alt+C, W, R).
 *
 * @example
 *   const toggles = findToggles((key) => view.flip(key));
 *   field.append(toggles.caseSensitive, toggles.wholeWord, toggles.regexp);
 */
export function findToggles(flip: (key: FindToggle) => void): Record<FindToggle, HTMLButtonElement> {
  const toggle = (key: FindToggle, glyph: string, title: string) =>
    // The glyph is drawn by CSS (data-glyph): the button's name is its words alone.
    h('button', {
      type: 'button',
      class: `find-toggle find-${key}`,
      title,
      'aria-label': title,
      'data-glyph': glyph,
      'aria-pressed': 'false',
      onclick: () => flip(key),
    });
  return {
    caseSensitive: toggle('caseSensitive', 'Aa', 'Match Case (Alt+C)'),
    wholeWord: toggle('wholeWord', 'ab', 'Match Whole Word (Alt+W)'),
    regexp: toggle('regexp', '.*', 'Use Regular Expression (Alt+R)'),
  };
}

/** Matches counted at most (beyond it the panel says "1000+"). */
const COUNT_LIMIT = 1000;

const panels = new WeakMap<EditorView, FindPanel>();

/**
 * The search extension with the styled panel.
 *
 * @example
 *   new EditorView({ extensions: [findPanel(), keymap.of([{ key: 'Mod-h', run: openReplace }])] });
 */
export function findPanel(): Extension {
  return search({ top: true, createPanel: (view) => new FindPanel(view) });
}

/** Opens the panel with its replace row (Ctrl+H). */
export function openReplace(view: EditorView): boolean {
  openSearchPanel(view);
  panels.get(view)?.showReplace(true);
  return true;
}

class FindPanel implements Panel {
  readonly dom: HTMLElement;
  readonly top = true;
  private readonly find: HTMLInputElement;
  private readonly replace: HTMLInputElement;
  private readonly replaceRow: HTMLElement;
  private readonly chevron: HTMLButtonElement;
  private readonly count = h('span', { class: 'find-count', 'aria-live': 'polite' });
  private readonly toggles: Record<FindToggle, HTMLButtonElement>;
  private query: SearchQuery;

  constructor(private readonly view: EditorView) {
    this.query = getSearchQuery(view.state);
    this.find = h('input', {
      class: 'find-input',
      'main-field': 'true',
      placeholder: 'Find',
      'aria-label': 'Find',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.replace = h('input', { class: 'find-input', placeholder: 'Replace', 'aria-label': 'Replace', autocomplete: 'off', spellcheck: 'false' });
    this.toggles = findToggles((key) => this.flip(key));
    const button = (className: string, label: string, title: string, run: () => void) =>
      h('button', { type: 'button', class: `find-button ${className}`, title, 'aria-label': title, onclick: run }, label);
    this.chevron = button('find-expand', '›', 'Toggle Replace (Ctrl+H)', () => this.showReplace(this.replaceRow.hidden));
    this.chevron.setAttribute('aria-expanded', 'false');
    this.replaceRow = h(
      'div',
      { class: 'find-row', hidden: true },
      h('span', { class: 'find-field' }, this.replace),
      button('find-replace-one', 'Replace', 'Replace (Enter)', () => replaceNext(this.view)),
      button('find-replace-all', 'All', 'Replace All (Ctrl+Alt+Enter)', () => replaceAll(this.view)),
    );
    this.dom = h(
      'div',
      { class: 'cm-search find-panel', role: 'search' },
      this.chevron,
      h(
        'div',
        { class: 'find-rows' },
        h(
          'div',
          { class: 'find-row' },
          h('span', { class: 'find-field' }, this.find, this.toggles.caseSensitive, this.toggles.wholeWord, this.toggles.regexp),
          this.count,
          button('find-previous', '↑', 'Previous Match (Shift+Enter)', () => findPrevious(this.view)),
          button('find-next', '↓', 'Next Match (Enter)', () => findNext(this.view)),
          button('find-close', '×', 'Close (Escape)', () => closeSearchPanel(this.view)),
        ),
        this.replaceRow,
      ),
    );
    this.find.addEventListener('input', () => this.commit());
    this.replace.addEventListener('input', () => this.commit());
    this.dom.addEventListener('keydown', (event) => this.keydown(event));
    panels.set(view, this);
    this.show(this.query);
  }

  mount(): void {
    this.find.select();
  }

  destroy(): void {
    panels.delete(this.view);
  }

  update(update: ViewUpdate): void {
    for (const tr of update.transactions)
      for (const effect of tr.effects) if (effect.is(setSearchQuery) && !effect.value.eq(this.query)) this.show(effect.value);
    if (update.docChanged) this.countMatches(update.state);
  }

  showReplace(show: boolean): void {
    this.replaceRow.hidden = !show;
    this.chevron.setAttribute('aria-expanded', String(show));
    this.chevron.classList.toggle('open', show);
    (show && this.find.value ? this.replace : this.find).focus();
  }

  private show(query: SearchQuery): void {
    this.query = query;
    this.find.value = query.search;
    this.replace.value = query.replace;
    for (const key of ['caseSensitive', 'wholeWord', 'regexp'] as const) this.toggles[key].setAttribute('aria-pressed', String(query[key]));
    this.countMatches(this.view.state);
  }

  private flip(key: FindToggle): void {
    this.toggles[key].setAttribute('aria-pressed', String(this.toggles[key].getAttribute('aria-pressed') !== 'true'));
    this.commit();
  }

  private commit(): void {
    const pressed = (key: keyof FindPanel['toggles']) => this.toggles[key].getAttribute('aria-pressed') === 'true';
    const query = new SearchQuery({
      search: this.find.value,
      replace: this.replace.value,
      caseSensitive: pressed('caseSensitive'),
      wholeWord: pressed('wholeWord'),
      regexp: pressed('regexp'),
    });
    if (query.eq(this.query)) return;
    this.query = query;
    this.view.dispatch({ effects: setSearchQuery.of(query) });
    this.countMatches(this.view.state);
  }

  private countMatches(state: EditorState): void {
    const query = this.query;
    this.find.classList.toggle('invalid', query.search !== '' && !query.valid);
    if (!query.search) return void (this.count.textContent = '');
    if (!query.valid) return void (this.count.textContent = 'Invalid pattern');
    const cursor = query.getCursor(state);
    let found = 0;
    while (found < COUNT_LIMIT && !cursor.next().done) found += 1;
    this.count.textContent = found === 0 ? 'No results' : `${found === COUNT_LIMIT ? `${COUNT_LIMIT}+` : found} found`;
    this.count.classList.toggle('none', found === 0);
  }

  private keydown(event: KeyboardEvent): void {
    if (runScopeHandlers(this.view, event, 'search-panel')) return event.preventDefault();
    const key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && (key === 'h' || key === 'f')) {
      // Ctrl+H in the panel shows the replace row; Ctrl+F goes back to the query.
      if (key === 'h') this.showReplace(true);
      else this.find.select();
      return event.preventDefault();
    }
    if (event.altKey && !event.ctrlKey && !event.metaKey && (key === 'c' || key === 'w' || key === 'r')) {
      this.flip(key === 'c' ? 'caseSensitive' : key === 'w' ? 'wholeWord' : 'regexp');
      return event.preventDefault();
    }
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (event.target === this.replace) {
      if ((event.ctrlKey || event.metaKey) && event.altKey) replaceAll(this.view);
      else replaceNext(this.view);
    } else (event.shiftKey ? findPrevious : findNext)(this.view);
  }
}
