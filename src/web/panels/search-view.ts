// The Search view (Ctrl+Shift+F, and Ctrl+Shift+H with replace), VS Code's: the query with its
// toggles (match case, whole word, regular expression) laid out as the editor's find panel,
// files to include and exclude, then the results grouped by file with the matches highlighted;
// a click opens the file at the match. With replace shown, each match shows what replaces it
// (before → after), and can be replaced alone, with its file, or with all; a match or a file
// dismissed is spared. One route answers both: POST /api/code/replace previews a page of files
// at a time (the view shows each page as it comes and asks for the next), and
// /api/code/replace/apply applies the edits kept, refused whole (409) when a file changed since.
import type { CodeReplaceApplied, CodeReplacePreview } from '../../contracts/code-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import { findToggles, type FindToggle } from '../editor/find-panel.ts';
import './search-view.css';

type FilePreview = CodeReplacePreview['files'][number];

/** Files asked for per page: the first results show while the next pages are found. */
const PAGE_FILES = 50;
/** Matches the view shows at most; past them it asks for a narrower search. */
const MAX_SHOWN = 10_000;
/** Files applied per request (the route takes at most 1,000). */
const APPLY_FILES = 500;
/** Characters of a line shown before its match. */
const LEAD = 28;
const DEBOUNCE_MS = 300;

export interface SearchHost {
  /** Opens a file with the match selected. */
  reveal(path: string, line: number, column: number, endColumn: number): void | Promise<void>;
  notify(text: string, level?: 'info' | 'warning' | 'error'): void;
}

interface Shown extends FilePreview {
  /** Which matches are still in the set (a dismissed one is not replaced). */
  kept: boolean[];
  element: HTMLElement;
}

/**
 * The Search view; `element` goes in a side bar.
 *
 * @example
 *   const search = new SearchView({ reveal: (path, line, column) => openAt(path, line, column), notify });
 *   side.append(search.element);
 *   search.open({ replace: true, text: 'colour' });
 */
export class SearchView {
  readonly element = h('section', { class: 'panel search-view', 'aria-label': 'Search' });
  private readonly query = input('search-query', 'Search');
  private readonly replacement = input('search-replace', 'Replace');
  private readonly include = input('search-include', 'Files to include', 'e.g. *.ts, src/**');
  private readonly exclude = input('search-exclude', 'Files to exclude', 'e.g. *.test.ts, dist/');
  private readonly toggles: Record<FindToggle, HTMLButtonElement>;
  private readonly chevron: HTMLButtonElement;
  private readonly replaceRow: HTMLElement;
  private readonly replaceAllButton: HTMLButtonElement;
  private readonly status = h('p', { class: 'search-status', role: 'status', 'aria-live': 'polite' });
  private readonly note = h('p', { class: 'search-note', hidden: true });
  private readonly results = h('div', { class: 'search-results', role: 'list', 'aria-label': 'Search results' });
  private shown: Shown[] = [];
  private running: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: SearchHost) {
    this.toggles = findToggles((key) => this.flip(key));
    this.chevron = h(
      'button',
      {
        type: 'button',
        class: 'find-button find-expand',
        title: 'Toggle Replace (Ctrl+Shift+H)',
        'aria-label': 'Toggle Replace',
        'aria-expanded': 'false',
        onclick: () => this.showReplace(this.replaceRow.hidden),
      },
      '›',
    );
    this.replaceAllButton = h(
      'button',
      {
        type: 'button',
        class: 'find-button search-replace-all',
        title: 'Replace All (Ctrl+Alt+Enter)',
        'aria-label': 'Replace All',
        disabled: true,
        onclick: () => void this.replaceAll(),
      },
      'Replace All',
    );
    this.replaceRow = h('div', { class: 'find-row', hidden: true }, h('span', { class: 'find-field' }, this.replacement), this.replaceAllButton);
    const form = h(
      'div',
      { class: 'search-form', role: 'search' },
      this.chevron,
      h(
        'div',
        { class: 'find-rows' },
        h('div', { class: 'find-row' }, h('span', { class: 'find-field' }, this.query, ...Object.values(this.toggles))),
        this.replaceRow,
      ),
    );
    const globs = h('div', { class: 'search-globs' }, label('Files to include', this.include), label('Files to exclude', this.exclude));
    fill(this.element, h('div', { class: 'panel-title' }, 'Search'), form, globs, this.status, this.note, this.results);
    for (const field of [this.query, this.include, this.exclude, this.replacement]) field.addEventListener('input', () => this.soon());
    this.element.addEventListener('keydown', (event) => this.keydown(event));
  }

  /** Shows the view's query (with `text` when given) and runs the search; `replace` shows the replace row. */
  open(options: { replace?: boolean; text?: string } = {}): void {
    if (options.replace) this.showReplace(true, false);
    if (options.text && options.text !== this.query.value) {
      this.query.value = options.text;
      void this.search();
    }
    const field = options.replace && this.query.value ? this.replacement : this.query;
    field.focus();
    field.select();
  }

  private get replacing(): boolean {
    return !this.replaceRow.hidden;
  }

  private showReplace(show: boolean, focus = true): void {
    const changed = this.replaceRow.hidden === show;
    this.replaceRow.hidden = !show;
    this.chevron.setAttribute('aria-expanded', String(show));
    this.chevron.classList.toggle('open', show);
    if (focus) (show ? this.replacement : this.query).focus();
    if (changed && this.query.value) void this.search();
  }

  private flip(key: FindToggle): void {
    const button = this.toggles[key];
    button.setAttribute('aria-pressed', String(button.getAttribute('aria-pressed') !== 'true'));
    void this.search();
  }

  private pressed(key: FindToggle): boolean {
    return this.toggles[key].getAttribute('aria-pressed') === 'true';
  }

  private keydown(event: KeyboardEvent): void {
    const keys: Record<string, FindToggle> = { c: 'caseSensitive', w: 'wholeWord', r: 'regexp' };
    const toggle = event.altKey && !event.ctrlKey && !event.metaKey ? keys[event.key.toLowerCase()] : undefined;
    if (toggle) {
      event.preventDefault();
      this.flip(toggle);
    } else if (event.key === 'Enter' && event.target === this.replacement && event.ctrlKey && event.altKey) {
      event.preventDefault();
      void this.replaceAll();
    } else if (event.key === 'Enter' && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      void this.search();
    }
  }

  /** Searches once the typing pauses. */
  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.search(), DEBOUNCE_MS);
  }

  /** Runs the search (and the preview, with replace shown), page by page; a newer search stops an older one. */
  async search(): Promise<void> {
    clearTimeout(this.timer);
    this.running?.abort();
    const running = new AbortController();
    this.running = running;
    this.shown = [];
    this.results.replaceChildren();
    this.note.hidden = true;
    this.query.classList.remove('invalid');
    this.query.removeAttribute('aria-invalid');
    this.replaceAllButton.disabled = true;
    const pattern = this.query.value;
    if (!pattern) return this.say('');
    const body = {
      pattern,
      regex: this.pressed('regexp'),
      case: this.pressed('caseSensitive') ? 'sensitive' : 'insensitive',
      wholeWord: this.pressed('wholeWord'),
      include: globs(this.include.value),
      exclude: globs(this.exclude.value),
      replacement: this.replacing ? this.replacement.value : '',
      maxFiles: PAGE_FILES,
    };
    this.element.setAttribute('aria-busy', 'true');
    this.say('Searching…');
    let after: string | undefined;
    let matches = 0;
    try {
      do {
        const page = await api<CodeReplacePreview>('POST', '/api/code/replace', { ...body, ...(after !== undefined ? { after } : {}) }, running.signal);
        if (running !== this.running) return;
        if (page.index !== 'ready')
          this.tell(
            page.index === 'building'
              ? 'The code index is being built: these are the files it holds so far.'
              : 'The code index is off or not built, and search finds files through it (codeIndex.background in settings.json).',
          );
        if (page.unwritable > 0 && this.replacing)
          this.tell(`${page.unwritable} file(s) with matches are left out: Loom does not write them (.git, .loom, read-only).`);
        for (const file of page.files) this.add(file);
        matches += page.matchCount;
        after = page.next;
        if (page.truncated === 'time') {
          this.tell('The search took too long and stopped: narrow it with files to include.');
          after = undefined;
        }
        if (matches >= MAX_SHOWN && after !== undefined) {
          this.tell(`More than ${MAX_SHOWN.toLocaleString()} results: narrow the search to see them all.`);
          after = undefined;
        }
        this.summarize(after !== undefined);
      } while (after !== undefined);
    } catch (error) {
      if (running.signal.aborted) return;
      if (error instanceof ApiError && error.status === 400) {
        this.query.classList.add('invalid');
        this.query.setAttribute('aria-invalid', 'true');
      }
      this.say(inWords(error));
    } finally {
      if (running === this.running) this.element.removeAttribute('aria-busy');
    }
  }

  /** Adds one file's group to the results. */
  private add(file: FilePreview): void {
    const shown: Shown = { ...file, kept: file.matches.map(() => true), element: h('div', { class: 'search-file', role: 'listitem', 'data-path': file.path }) };
    const slash = file.path.lastIndexOf('/');
    const list = h('ul', { class: 'search-matches', 'aria-label': `Matches in ${file.path}` });
    const count = h('span', { class: 'search-count', 'aria-label': `${file.matches.length} matches` }, String(file.matches.length));
    const head = h(
      'div',
      { class: 'search-file-head' },
      h(
        'button',
        {
          type: 'button',
          class: 'search-file-name',
          'aria-expanded': 'true',
          title: file.path,
          onclick: (event) => {
            const button = event.currentTarget as HTMLButtonElement;
            const open = button.getAttribute('aria-expanded') !== 'true';
            button.setAttribute('aria-expanded', String(open));
            list.hidden = !open;
          },
        },
        h('span', { class: 'search-file-base' }, file.path.slice(slash + 1)),
        slash >= 0 ? h('span', { class: 'search-file-dir' }, file.path.slice(0, slash)) : null,
      ),
      count,
      this.replacing ? action('search-replace-file', '⇄', `Replace All in ${file.path}`, () => void this.apply([shown], `in ${file.path}`)) : null,
      action('search-dismiss', '×', `Dismiss ${file.path}`, () => this.dismiss(shown)),
    );
    file.matches.forEach((match, index) => {
      const at = match.column - match.previewColumn;
      const end = Math.min(match.preview.length, match.endColumn - match.previewColumn);
      let lead = match.preview.slice(0, at).trimStart();
      if (lead.length > LEAD) lead = `…${lead.slice(-LEAD)}`;
      const matched = match.preview.slice(at, end) || match.before;
      const item = h(
        'li',
        { class: 'search-match', 'data-line': match.line },
        h(
          'button',
          {
            type: 'button',
            class: 'search-match-open',
            title: `${file.path}:${match.line}:${match.column}`,
            onclick: () => void this.host.reveal(file.path, match.line, match.column, match.endColumn),
          },
          h('span', { class: 'visually-hidden' }, `Line ${match.line}: `),
          lead,
          this.replacing ? h('del', {}, matched) : h('mark', {}, matched),
          this.replacing ? h('ins', {}, match.after) : null,
          match.preview.slice(end),
        ),
        this.replacing
          ? action(
              'search-replace-one',
              '⇄',
              `Replace ${matched} with ${match.after} on line ${match.line}`,
              () => void this.apply([{ ...shown, kept: shown.kept.map((_, i) => i === index) }], `on line ${match.line} of ${file.path}`),
            )
          : null,
        action('search-dismiss', '×', `Dismiss line ${match.line}`, () => {
          shown.kept[index] = false;
          item.remove();
          const left = shown.kept.filter(Boolean).length;
          count.textContent = String(left);
          count.setAttribute('aria-label', `${left} matches`);
          if (left === 0) this.dismiss(shown);
          else this.summarize(false);
        }),
      );
      list.append(item);
    });
    fill(shown.element, head, list);
    this.shown.push(shown);
    this.results.append(shown.element);
  }

  private dismiss(shown: Shown): void {
    shown.element.remove();
    this.shown = this.shown.filter((other) => other !== shown);
    this.summarize(false);
  }

  /** "N results in M files", from what is still in the set. */
  private summarize(searching: boolean): void {
    const matches = this.shown.reduce((sum, file) => sum + file.kept.filter(Boolean).length, 0);
    const files = this.shown.length;
    this.replaceAllButton.disabled = matches === 0;
    this.say(
      matches === 0 && !searching
        ? 'No results.'
        : `${matches} result${matches === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}${searching ? '; searching…' : ''}`,
    );
  }

  private async replaceAll(): Promise<void> {
    if (!this.replacing || this.shown.length === 0) return;
    await this.apply(this.shown, 'in all files');
  }

  /** Applies the kept edits of `files`, then searches again (what the files hold now). */
  private async apply(files: Shown[], where: string): Promise<void> {
    const chosen = files
      .map((file) => ({ path: file.path, base: file.base, edits: file.edits.filter((_, index) => file.kept[index]) }))
      .filter((file) => file.edits.length > 0);
    if (chosen.length === 0) return;
    this.running?.abort();
    this.element.setAttribute('aria-busy', 'true');
    let edits = 0;
    let changed = 0;
    try {
      for (let at = 0; at < chosen.length; at += APPLY_FILES) {
        const applied = await api<CodeReplaceApplied>('POST', '/api/code/replace/apply', { files: chosen.slice(at, at + APPLY_FILES) });
        edits += applied.edits;
        changed += applied.files.length;
      }
      this.host.notify(`Replaced ${edits} occurrence${edits === 1 ? '' : 's'} ${where} (${changed} file${changed === 1 ? '' : 's'}).`);
    } catch (error) {
      const stale = error instanceof ApiError && error.code === 'VERSION_CONFLICT';
      this.host.notify(stale ? `${inWords(error)} The results are searched again.` : `Could not replace: ${inWords(error)}`, stale ? 'warning' : 'error');
    } finally {
      this.element.removeAttribute('aria-busy');
    }
    await this.search();
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  private tell(text: string): void {
    this.note.textContent = text;
    this.note.hidden = false;
  }
}

function input(id: string, name: string, placeholder = name): HTMLInputElement {
  return h('input', { id, class: 'find-input', placeholder, 'aria-label': name, autocomplete: 'off', spellcheck: 'false' });
}

function label(text: string, field: HTMLInputElement): HTMLElement {
  field.removeAttribute('aria-label');
  return h('label', { class: 'search-glob' }, h('span', {}, text), field);
}

function action(className: string, glyph: string, title: string, run: () => void): HTMLButtonElement {
  return h('button', { type: 'button', class: `find-button ${className}`, title, 'aria-label': title, onclick: run }, glyph);
}

/** Globs typed as VS Code takes them: separated by commas. */
function globs(text: string): string[] {
  return text
    .split(',')
    .map((glob) => glob.trim())
    .filter(Boolean);
}
