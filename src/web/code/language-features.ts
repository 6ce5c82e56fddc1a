// The editor's language features, from the server's code intelligence (docs/code-intelligence.md)
// over the local API, never a language server of the window's own: squiggles and the Problems
// tab from the servers' diagnostics, hover, go to definition (F12, Ctrl/Cmd+click, across
// files), find references (Shift+F12, in the References tab), rename (F2, previewed), symbol
// search (Ctrl+T in the workspace, Ctrl+Shift+O in the file), and the status bar's problem
// counts and the state of the language servers and the index. Every request is made on the
// text the user sees: what they typed is sent first (the document's sync is flushed).
//
// Where no language server runs for a language (servers off, an untrusted workspace, a
// language none serves) hover and diagnostics are not asked for at all, and what is asked and
// refused (503 LANGUAGE_SERVER_UNAVAILABLE) is said in a notification: no broken UI, no errors
// in the console beyond the browser's own line for a refused request.
import { linter, lintGutter } from '@codemirror/lint';
import { Prec, type Extension } from '@codemirror/state';
import { EditorView, hoverTooltip, keymap } from '@codemirror/view';
import type { CodeEditPreview, CodeHover, CodeNavigation } from '../../contracts/code-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { h } from '../dom.ts';
import type { OpenDocument } from '../editor/workbench.ts';
import type { EventStream } from '../events.ts';
import type { PaletteCommand } from '../panels/palette.ts';
import { CodeStatus } from './code-status.ts';
import { countsInWords, offsetAt, positionAt, ProblemsStore } from './diagnostics.ts';
import { renderMarkdown } from './markdown.ts';
import { problemsView } from './problems-panel.ts';
import { referencesView, type CodeRangeLike } from './references-panel.ts';
import { openRenameBox, RenamePreview, renameExtension } from './rename.ts';
import { SymbolSearch } from './symbol-search.ts';
import './code.css';

/** What the features need of the editor area (the Workbench). */
export interface FeaturesWorkbench {
  readonly activeDocument: OpenDocument | undefined;
  readonly editorView: EditorView;
  open(path: string): Promise<void>;
  /** An open document by path (its state is current unless it is the active one). */
  document(path: string): OpenDocument | undefined;
  /** Reads the documents' unsaved markers again (edits made by others do not set them). */
  refreshSummaries(): Promise<void>;
}

export interface FeaturesHost {
  workbench: FeaturesWorkbench;
  events: EventStream;
  notify(text: string, level?: 'info' | 'warning' | 'error'): void;
  /** Shows the bottom panel with one of its views (`problems`, `references`). */
  showBottom(view: 'problems' | 'references'): void;
}

/** The squiggles and their tooltips in the window's colours (a theme: it wins over lint's base theme). */
const lintLook = EditorView.theme({
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--error)', textUnderlineOffset: '3px' },
  '.cm-lintRange-warning': { backgroundImage: 'none', textDecoration: 'underline wavy var(--warn)', textUnderlineOffset: '3px' },
  '.cm-lintRange-info, .cm-lintRange-hint': { backgroundImage: 'none', textDecoration: 'underline dotted var(--accent)', textUnderlineOffset: '3px' },
  '.cm-unnecessary': { opacity: '0.6' },
  '.cm-diagnostic': { fontFamily: 'var(--font-ui)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--error)' },
  '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
  '.cm-diagnosticSource': { color: 'var(--muted)', opacity: '1' },
});

/** Quiet time over a symbol before its hover is asked for. */
const HOVER_MS = 350;

/**
 * The language features of every document, and their parts of the window.
 *
 * @example
 *   const features = new LanguageFeatures({ workbench, events, notify, showBottom });
 *   // in the Workbench's host: documentExtensions: (document) => features.extension(document),
 *   //                          onActive: (document) => features.activated(document)
 *   bottom.add(features.problems); bottom.add(features.references);
 *   statusBar.append(features.problemsButton, features.statusItem);
 *   window.append(...features.overlays);
 *   await features.start();
 */
export class LanguageFeatures {
  readonly status: CodeStatus;
  readonly store: ProblemsStore;
  readonly problems: ReturnType<typeof problemsView>;
  readonly references: ReturnType<typeof referencesView>;
  readonly problemsButton = h('button', { class: 'status-button', id: 'status-problems' });
  readonly statusItem = h('span', { id: 'status-code' });
  private readonly symbols: SymbolSearch;
  private readonly renamePreview: RenamePreview;

  constructor(private readonly host: FeaturesHost) {
    this.status = new CodeStatus(host.events);
    this.store = new ProblemsStore(host.events);
    this.problems = problemsView(
      this.store,
      (path, range) => this.reveal(path, range),
      () => this.noProblemsWords(),
    );
    this.references = referencesView(
      (path, range) => this.reveal(path, range),
      (path, line) => this.lineText(path, line),
    );
    this.symbols = new SymbolSearch({
      reveal: (path, range) => this.reveal(path, range),
      activePath: () => host.workbench.activeDocument?.path,
      indexWords: () => this.indexWords(),
      notify: host.notify,
    });
    this.renamePreview = new RenamePreview(host.notify);
    this.problemsButton.addEventListener('click', () => host.showBottom('problems'));
    this.store.onChange = (path) => {
      const active = host.workbench.activeDocument;
      if (active && (path === undefined || path === active.path)) this.store.show(host.workbench.editorView, active.path);
      this.problems.render();
      this.renderCounts();
    };
    this.status.onChange = () => {
      this.renderStatus();
      this.problems.render();
    };
    // The window's own keys for symbol search, wherever the focus is (VS Code's).
    document.addEventListener('keydown', (event) => {
      if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || event.altKey) return;
      const key = event.key.toLowerCase();
      if (key === 't' && !event.shiftKey) this.symbols.open('workspace');
      else if (key === 'o' && event.shiftKey) this.symbols.open('file');
      else if (key === 'm' && event.shiftKey) host.showBottom('problems');
      else return;
      event.preventDefault();
    });
    this.renderCounts();
    this.renderStatus();
  }

  /** The dialogs the window shows over everything (symbol search, the rename preview). */
  get overlays(): HTMLElement[] {
    return [this.symbols.element, this.renamePreview.element];
  }

  /** Reads the servers' state and the workspace's problems. */
  async start(): Promise<void> {
    await Promise.all([this.status.refresh(), this.store.refresh()]);
  }

  /** A document became the active one: its squiggles are the store's. */
  activated(document: OpenDocument | undefined): void {
    if (document) this.store.show(this.host.workbench.editorView, document.path);
    this.renderStatus();
  }

  /** The extensions each document's editor gets. */
  extension(document: OpenDocument): Extension {
    const at = (view: EditorView) => view.state.selection.main.head;
    return [
      linter(null),
      lintGutter(),
      lintLook,
      renameExtension,
      hoverTooltip((view, pos) => this.hover(view, document, pos), { hoverTime: HOVER_MS }),
      Prec.high(
        keymap.of([
          { key: 'F12', preventDefault: true, run: (view) => (void this.goToDefinition(view, document, at(view)), true) },
          { key: 'Shift-F12', preventDefault: true, run: (view) => (void this.findReferences(view, document, at(view)), true) },
          { key: 'F2', preventDefault: true, run: (view) => (this.rename(view, document, at(view)), true) },
          // VS Code's Problems panel, before lint's own panel (which lists the file's only).
          { key: 'Mod-Shift-m', preventDefault: true, run: () => (this.host.showBottom('problems'), true) },
        ]),
      ),
      EditorView.domEventHandlers({
        mousedown: (event, view) => {
          // Ctrl/Cmd+click: go to the definition of what was clicked (not a second cursor).
          if (event.button !== 0 || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return false;
          const pos = view.posAtCoords({ x: event.clientX, y: event.clientY });
          if (pos === null) return false;
          event.preventDefault();
          view.dispatch({ selection: { anchor: pos } });
          void this.goToDefinition(view, document, pos);
          return true;
        },
      }),
    ];
  }

  /** The palette's commands for the features. */
  commands(): PaletteCommand[] {
    const onActive = (run: (view: EditorView, document: OpenDocument, pos: number) => unknown) => () => {
      const document = this.host.workbench.activeDocument;
      const view = this.host.workbench.editorView;
      if (document) run(view, document, view.state.selection.main.head);
    };
    return [
      { name: 'loom.symbols.workspace', title: 'Go to Symbol in Workspace… (Ctrl+T)', source: 'loom', run: () => this.symbols.open('workspace') },
      { name: 'loom.symbols.file', title: 'Go to Symbol in Editor… (Ctrl+Shift+O)', source: 'loom', run: () => this.symbols.open('file') },
      { name: 'loom.definition', title: 'Go to Definition (F12)', source: 'loom', run: onActive((v, d, p) => this.goToDefinition(v, d, p)) },
      { name: 'loom.references', title: 'Find All References (Shift+F12)', source: 'loom', run: onActive((v, d, p) => this.findReferences(v, d, p)) },
      { name: 'loom.rename', title: 'Rename Symbol (F2)', source: 'loom', run: onActive((v, d, p) => this.rename(v, d, p)) },
      { name: 'loom.problems', title: 'View: Problems (Ctrl+Shift+M)', source: 'loom', run: () => this.host.showBottom('problems') },
      { name: 'loom.referencesPanel', title: 'View: References', source: 'loom', run: () => this.host.showBottom('references') },
    ];
  }

  /** Opens a file (its tab, when open) and puts the cursor at the start of `range`. */
  async reveal(path: string, range: CodeRangeLike): Promise<void> {
    const { workbench } = this.host;
    if (workbench.activeDocument?.path !== path) await workbench.open(path);
    if (workbench.activeDocument?.path !== path) return; // could not be opened: open() said why
    const view = workbench.editorView;
    const from = offsetAt(view.state.doc, range.start.line, range.start.column);
    view.dispatch({ selection: { anchor: from }, effects: EditorView.scrollIntoView(from, { y: 'center' }) });
    view.focus();
  }

  private async hover(view: EditorView, document: OpenDocument, pos: number) {
    if (!this.status.serves(document.language)) return null;
    const word = view.state.wordAt(pos);
    if (!word) return null;
    try {
      await document.sync.flush();
      const { line, column } = positionAt(view.state.doc, pos);
      const hover = await api<CodeHover>('GET', `/api/code/hover?${query(document.path, line, column)}`);
      if (!hover.markdown || !hover.markdown.trim()) return null;
      const doc = view.state.doc;
      const from = hover.range ? offsetAt(doc, hover.range.start.line, hover.range.start.column) : word.from;
      const to = hover.range ? offsetAt(doc, hover.range.end.line, hover.range.end.column) : word.to;
      const markdown = hover.markdown;
      return {
        pos: from,
        end: Math.max(from, to),
        above: true,
        create: () => ({ dom: h('div', { class: 'code-hover', role: 'tooltip' }, renderMarkdown(markdown)) }),
      };
    } catch {
      // A hover is a nicety: a server restarting or refusing leaves no trace.
      return null;
    }
  }

  private async goToDefinition(view: EditorView, document: OpenDocument, pos: number): Promise<void> {
    const answer = await this.navigate('definition', view, document, pos);
    if (!answer) return;
    const inside = answer.locations.filter((location) => location.path !== null);
    const target = inside[0];
    if (!target) {
      const outside = answer.locations[0];
      this.host.notify(outside ? `Defined outside the workspace: ${outside.uri}` : 'No definition found here.', 'info');
      return;
    }
    await this.reveal(target.path!, target.range);
  }

  private async findReferences(view: EditorView, document: OpenDocument, pos: number): Promise<void> {
    const word = view.state.wordAt(pos);
    const name = word ? view.state.sliceDoc(word.from, word.to) : 'the symbol';
    const answer = await this.navigate('references', view, document, pos);
    if (!answer) return;
    this.references.show({ title: `References to ${name}`, locations: answer.locations, source: answer.source });
    this.host.showBottom('references');
  }

  private async navigate(kind: 'definition' | 'references', view: EditorView, document: OpenDocument, pos: number): Promise<CodeNavigation | undefined> {
    if (!view.state.wordAt(pos)) {
      this.host.notify(
        kind === 'definition' ? 'Put the cursor on a name to go to its definition.' : 'Put the cursor on a name to find its references.',
        'info',
      );
      return undefined;
    }
    try {
      await document.sync.flush();
      const { line, column } = positionAt(view.state.doc, pos);
      return await api<CodeNavigation>('GET', `/api/code/${kind}?${query(document.path, line, column)}`);
    } catch (error) {
      this.host.notify(`${kind === 'definition' ? 'Go to definition' : 'Find references'}: ${inWords(error)}`, quietLevel(error));
      return undefined;
    }
  }

  private rename(view: EditorView, document: OpenDocument, pos: number): void {
    if (document.readOnly) return this.host.notify(`${document.path} is read-only.`, 'info');
    if (!this.status.serves(document.language)) {
      return this.host.notify(`Rename needs a language server, and none runs for ${document.language} here.`, 'info');
    }
    const word = view.state.wordAt(pos);
    if (!word) return this.host.notify('Put the cursor on a name to rename it.', 'info');
    const name = view.state.sliceDoc(word.from, word.to);
    openRenameBox(view, word.from, name, (newName) => void this.previewRename(document, view.state.doc, word.from, name, newName));
  }

  private async previewRename(document: OpenDocument, doc: EditorView['state']['doc'], pos: number, name: string, newName: string): Promise<void> {
    let preview: CodeEditPreview;
    try {
      await document.sync.flush();
      const { line, column } = positionAt(doc, pos);
      preview = await api<CodeEditPreview>('POST', '/api/code/rename', { path: document.path, line, column, newName });
    } catch (error) {
      this.host.notify(`Rename: ${inWords(error)}`, quietLevel(error));
      return;
    }
    if (preview.files.length === 0) return this.host.notify(`Nothing to rename: ${name} is used nowhere the server can change.`, 'info');
    // The open documents it changed are unsaved now: their tabs say so.
    if (await this.renamePreview.show({ from: name, to: newName }, preview)) await this.host.workbench.refreshSummaries();
  }

  /** A line of an open document (the references' previews). */
  private lineText(path: string, line: number): string | undefined {
    const { workbench } = this.host;
    const doc = workbench.activeDocument?.path === path ? workbench.editorView.state.doc : workbench.document(path)?.state.doc;
    return doc && line >= 1 && line <= doc.lines ? doc.line(line).text : undefined;
  }

  private renderCounts(): void {
    const counts = this.store.counts();
    const hidden = (text: string) => h('span', { class: 'visually-hidden' }, text);
    const plural = (count: number, word: string) => ` ${word}${count === 1 ? '' : 's'}`;
    // Named by its content (axe: a name holds the visible text): "Problems: 1 error, 0 warnings".
    this.problemsButton.replaceChildren(
      hidden('Problems: '),
      h(
        'span',
        { class: counts.error ? 'count error' : 'count' },
        h('span', { 'aria-hidden': 'true' }, '⊗ '),
        String(counts.error),
        hidden(`${plural(counts.error, 'error')}, `),
      ),
      h(
        'span',
        { class: counts.warning ? 'count warning' : 'count' },
        h('span', { 'aria-hidden': 'true' }, '⚠ '),
        String(counts.warning),
        hidden(plural(counts.warning, 'warning')),
      ),
    );
    this.problemsButton.title = `Problems: ${countsInWords(counts)} (Ctrl+Shift+M)`;
  }

  private renderStatus(): void {
    const { servers, index } = this.status;
    if (!this.status.known) {
      this.statusItem.textContent = '';
      return;
    }
    // On the bar: the servers at work and the active file's; every one in the tooltip.
    const language = this.host.workbench.activeDocument?.language;
    const shown = servers.filter(
      (server) =>
        server.state === 'running' ||
        server.state === 'starting' ||
        server.state === 'restarting' ||
        (language !== undefined && server.languages.includes(language)),
    );
    const serverWords =
      servers.length === 0
        ? 'language servers: off'
        : shown.length === 0
          ? 'language servers: idle'
          : shown.map((server) => `${server.server}: ${server.state}`).join(' · ');
    let indexWords = 'index: off';
    if (index?.state === 'building') {
      const progress = index.progress;
      indexWords = progress ? `indexing ${progress.done}/${progress.files}${progress.walked ? '' : '+'}` : 'indexing…';
    } else if (index?.state === 'ready') indexWords = `index: ${index.files} files`;
    else if (index?.state === 'failed') indexWords = 'index: failed';
    this.statusItem.textContent = `${serverWords} · ${indexWords}`;
    this.statusItem.classList.toggle('offline', index?.state === 'failed' || servers.some((server) => server.state === 'unavailable'));
    this.statusItem.title = [
      ...servers.map(
        (server) =>
          `${server.server} (${server.languages.join(', ')}): ${server.state}${server.mode === 'restricted' ? ', restricted (the workspace is not trusted)' : ''}${server.reason ? ` — ${server.reason}` : ''}`,
      ),
      servers.length === 0 ? 'No language server is on (languageServers.enabled in the config).' : '',
      index?.state === 'failed' && index.error ? `The code index failed: ${index.error}` : '',
      index?.state === 'empty' ? 'The code index is not built (codeIndex.background in the config).' : '',
    ]
      .filter(Boolean)
      .join('\n');
  }

  private noProblemsWords(): string {
    if (this.status.known && !this.status.servers.some((server) => server.state !== 'unavailable')) {
      return 'No language server runs in this workspace, so no problems are reported.';
    }
    return 'No problems have been detected in the workspace.';
  }

  private indexWords(): string | undefined {
    const { index } = this.status;
    if (!this.status.known || !index) return undefined;
    if (index.state === 'empty') return 'The code index is off here, so there are no symbols to search.';
    if (index.state === 'building') return 'The code index is still being built: try again in a moment.';
    if (index.state === 'failed') return `The code index failed${index.error ? `: ${index.error}` : ''}.`;
    return undefined;
  }
}

function query(path: string, line: number, column: number): string {
  return new URLSearchParams({ path, line: String(line), column: String(column) }).toString();
}

/** Refusals that say how things are (no server here, nothing there) are news, not warnings. */
function quietLevel(error: unknown): 'info' | 'warning' {
  return error instanceof ApiError && (error.status === 503 || error.status === 404 || error.status === 400) ? 'info' : 'warning';
}
