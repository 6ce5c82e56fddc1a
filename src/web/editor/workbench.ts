// The editor area: one CodeMirror view, one editor state per open document (switching tabs
// swaps states, so each keeps its undo history, selection and scroll), the tabs with their
// unsaved markers, saving (Ctrl/Cmd+S) and the way out of a conflict with the disk. The
// window's tabs are the server's open documents: opening, closing and saving go through the
// local API, so what the API, agents and the window see is one set of documents.
import { Compartment, EditorState, StateEffect, Transaction, type ChangeSpec, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import type { ClosedDocument, DocumentList, DocumentSummary, DocumentText } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { remoteEdit } from './annotations.ts';
import { DocumentSync, type FileChangeEvent } from './document-sync.ts';
import { ghostText, type CompletionTiming } from './ghost-text.ts';
import { throttle } from '../throttle.ts';
import { languageMode } from './languages.ts';
import { editorSetup, keepWrapPreference, wordWrap, wrapExtension, wrapPreference, wraps } from './setup.ts';

/** Quiet time after the cursor moves before the server is told. */
const CURSOR_QUIET_MS = 400;

/** Least time between two reads of the documents' state that changes on disk cause. */
const DISK_CHECK_MS = 1000;

export interface WorkbenchHost {
  notify(text: string, level?: 'info' | 'warning' | 'error'): void;
  onTiming(timing: CompletionTiming): void;
  /** The active document changed (the status bar shows it). */
  onActive(document: OpenDocument | undefined): void;
  /** The cursor moved in the active document (1-based). */
  onCursor(line: number, column: number): void;
  /** Word wrap was turned on or off. */
  onWrap?(on: boolean): void;
  /** What else each document's editor gets (the language features). */
  documentExtensions?(document: OpenDocument): Extension;
}

export interface OpenDocument {
  path: string;
  language: string;
  readOnly: boolean;
  /** Saved since the last edit (the server's `dirty`, and no edit waiting to be sent). */
  dirty: boolean;
  /** The file changed on disk while the document had unsaved edits (save answered EDIT_CONFLICT). */
  conflict: boolean;
  state: EditorState;
  sync: DocumentSync;
}

export class Workbench {
  readonly element: HTMLElement;
  private readonly tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Open files' });
  private readonly conflictBar = h('div', { class: 'conflict-bar', hidden: true, role: 'alert' });
  private readonly empty = h('div', { class: 'editor-empty' }, 'Open a file from the tree, or press Ctrl+Shift+P.');
  private readonly view: EditorView;
  private readonly documents = new Map<string, OpenDocument>();
  private active: OpenDocument | undefined;
  /** Word wrap, for every document (Alt+Z). */
  private wrap = wrapPreference();
  /** The documents, most recently active first (Ctrl+Tab goes down this list). */
  private recent: OpenDocument[] = [];
  /** Paths of closed tabs, the last closed last (Ctrl+Shift+T reopens it). */
  private readonly closedPaths: string[] = [];
  /** While Ctrl is held after Ctrl+Tab: the order it walks and where it is. */
  private cycling: { order: OpenDocument[]; index: number } | undefined;

  constructor(
    private readonly host: WorkbenchHost,
    events: EventStream,
  ) {
    const editorHost = h('div', { class: 'editor' });
    this.view = new EditorView({ parent: editorHost, state: EditorState.create({ doc: '' }) });
    this.element = h('section', { class: 'workbench' }, this.tabs, this.conflictBar, this.empty, editorHost);
    this.showEditor(false);
    events.on('file:change', (event) => {
      const data = event.data as unknown as FileChangeEvent;
      this.documents.get(data.path)?.sync.remote(data);
    });
    events.on('file:open', (event) => {
      const document = this.documents.get(String(event.data['path']));
      if (document && event.data['reloaded']) void document.sync.resync().then(() => this.refreshSummaries());
    });
    events.on('file:save', (event) => {
      const document = this.documents.get(String(event.data['path']));
      if (document && !document.sync.busy && event.data['version'] === document.sync.serverVersion) this.setDirty(document, false);
    });
    // Files renamed or deleted (by the tree, or any client of the API): the tabs follow, or close.
    events.on('file:rename', (event) => this.followRename(String(event.data['from']), String(event.data['to'])));
    events.on('file:delete', (event) => this.closeDeleted(String(event.data['path'])));
    events.onResync(() => {
      for (const document of this.documents.values()) void document.sync.resync();
      void this.refreshSummaries();
    });
    // Files changed on disk by another program: the server watches the workspace; a document
    // without unsaved edits takes the change (file:open `reloaded`, above), one with unsaved
    // edits is in conflict, which the documents' state says (the conflict bar shows at once).
    const checkSoon = throttle(() => void this.refreshSummaries(), DISK_CHECK_MS);
    events.on('disk:change', (event) => {
      const paths = event.data['paths'];
      if (event.data['more'] !== undefined || (Array.isArray(paths) && paths.some((path) => this.documents.has(String(path))))) checkSoon();
    });
    // A file the server does not watch (under node_modules, build output): looked at on coming back.
    window.addEventListener('focus', () => void this.refreshSummaries());
  }

  get activeDocument(): OpenDocument | undefined {
    return this.active;
  }

  /** An open document (its `state` is current unless it is the active one: the view holds that). */
  document(path: string): OpenDocument | undefined {
    return this.documents.get(path);
  }

  /** The editor view (the palette's commands act on it). */
  get editorView(): EditorView {
    return this.view;
  }

  /** Whether lines wrap. */
  get wordWrap(): boolean {
    return this.wrap;
  }

  /** Turns word wrap on or off in every document (Alt+Z), and keeps the choice. */
  toggleWrap(): void {
    this.wrap = !this.wrap;
    keepWrapPreference(this.wrap);
    if (this.active) this.view.dispatch({ effects: wordWrap.reconfigure(wrapExtension(this.wrap)) });
    this.host.onWrap?.(this.wrap);
  }

  /** Opens the documents the server has open (a reloaded window finds its tabs again). */
  async restore(): Promise<void> {
    const { documents } = await api<DocumentList>('GET', '/api/editor/documents');
    for (const summary of documents) await this.load(summary);
    const active = documents.find((summary) => summary.active);
    if (active) this.activate(this.documents.get(active.path));
    this.renderTabs();
  }

  /** Opens a file of the workspace (or switches to it) and focuses the editor. */
  async open(path: string): Promise<void> {
    try {
      const summary = await api<DocumentSummary>('POST', '/api/editor/open', { path });
      const document = this.documents.get(summary.path) ?? (await this.load(summary));
      this.activate(document);
      this.view.focus();
    } catch (error) {
      this.host.notify(`Could not open ${path}: ${inWords(error)}`, 'error');
    }
  }

  /**
   * Opens a file with a range of one line selected and scrolled to (a search result): 1-based
   * line and columns (UTF-16), clamped to the text as it is now.
   *
   * @example await workbench.reveal('src/a.ts', 12, 5, 11);
   */
  async reveal(path: string, line: number, column: number, endColumn: number): Promise<void> {
    await this.open(path);
    if (this.active?.path !== path) return;
    const { doc } = this.view.state;
    const target = doc.line(Math.max(1, Math.min(line, doc.lines)));
    const at = (col: number) => Math.min(target.to, target.from + Math.max(0, col - 1));
    this.view.dispatch({ selection: { anchor: at(column), head: at(endColumn) }, scrollIntoView: true });
  }

  async save(document = this.active, options: { overwrite?: boolean } = {}): Promise<void> {
    if (!document || document.readOnly) return;
    try {
      await document.sync.flush();
      const summary = await api<DocumentSummary>('POST', '/api/editor/save', { path: document.path, ...options });
      document.conflict = false;
      this.setDirty(document, summary.dirty || document.sync.busy);
      this.renderConflict();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'EDIT_CONFLICT') {
        document.conflict = true;
        this.renderConflict();
        return;
      }
      this.host.notify(`Could not save ${document.path}: ${inWords(error)}`, 'error');
    }
  }

  /** Reads the file again from disk, dropping the unsaved edits (one way out of a conflict). */
  async reload(document = this.active): Promise<void> {
    if (!document) return;
    try {
      await document.sync.flush();
      await api<DocumentSummary>('POST', '/api/editor/reload', { path: document.path });
      await document.sync.resync();
      document.conflict = false;
      this.setDirty(document, false);
      this.renderConflict();
    } catch (error) {
      this.host.notify(`Could not reload ${document.path}: ${inWords(error)}`, 'error');
    }
  }

  async close(document = this.active): Promise<void> {
    if (!document) return;
    await document.sync.flush();
    let closed: ClosedDocument;
    try {
      closed = await api<ClosedDocument>('POST', '/api/editor/close', { path: document.path });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'UNSAVED_CHANGES')) return this.host.notify(inWords(error), 'error');
      if (!confirm(`${document.path} has unsaved changes. Close it and lose them?`)) return;
      closed = await api<ClosedDocument>('POST', '/api/editor/close', { path: document.path, discard: true });
    }
    this.documents.delete(document.path);
    this.recent = this.recent.filter((other) => other !== document);
    this.closedPaths.push(document.path);
    if (this.closedPaths.length > 50) this.closedPaths.shift();
    if (this.active === document) this.activate(closed.active ? this.documents.get(closed.active) : [...this.documents.values()].at(-1));
    this.renderTabs();
  }

  /** Opens the tab closed last again (Ctrl+Shift+T); one already open again is skipped. */
  async reopenClosed(): Promise<void> {
    let path = this.closedPaths.pop();
    while (path !== undefined && this.documents.has(path)) path = this.closedPaths.pop();
    if (path !== undefined) await this.open(path);
  }

  /**
   * Ctrl+Tab (by 1) and Ctrl+Shift+Tab (by -1): the next most recently used tab; pressed again
   * while Ctrl is held, the one after (the order stays the one at the first press until Ctrl
   * is let go: `endCycle`).
   */
  cycle(by: 1 | -1): void {
    if (this.recent.length < 2) return;
    this.cycling ??= { order: [...this.recent], index: 0 };
    const { order } = this.cycling;
    this.cycling.index = (this.cycling.index + by + order.length) % order.length;
    const document = order[this.cycling.index]!;
    if (this.documents.has(document.path)) void this.switchTo(document, false);
  }

  /** Ctrl was let go: the tab reached is now the most recent. */
  endCycle(): void {
    if (!this.cycling) return;
    this.cycling = undefined;
    if (this.active) this.recent = [this.active, ...this.recent.filter((other) => other !== this.active)];
  }

  /** Sends what was typed in the documents at or under `path` (before a rename or deletion of it). */
  async flushUnder(path: string): Promise<void> {
    await Promise.all([...this.documents.values()].filter((document) => atOrUnder(document.path, path)).map((document) => document.sync.flush()));
  }

  /** The documents at or under `path` with unsaved edits. */
  dirtyUnder(path: string): string[] {
    return [...this.documents.values()].filter((document) => document.dirty && atOrUnder(document.path, path)).map((document) => document.path);
  }

  /**
   * The file or folder `from` was renamed to `to` (the server's documents moved with it): the
   * tabs at or under `from` stand for the new paths, with their text, undo history and cursor;
   * the language follows the new name. Nothing when no tab is there (told twice: the answer and the event).
   */
  followRename(from: string, to: string): void {
    const moved = [...this.documents.values()].filter((document) => atOrUnder(document.path, from));
    if (moved.length === 0) return;
    const documents = [...this.documents.values()];
    this.documents.clear();
    for (const document of documents) {
      if (moved.includes(document)) {
        document.path = to + document.path.slice(from.length);
        document.sync.path = document.path;
      }
      this.documents.set(document.path, document);
    }
    for (let index = 0; index < this.closedPaths.length; index++) {
      const closed = this.closedPaths[index]!;
      if (atOrUnder(closed, from)) this.closedPaths[index] = to + closed.slice(from.length);
    }
    this.renderTabs();
    if (this.active && moved.includes(this.active)) this.host.onActive(this.active);
    void this.relabel(moved);
  }

  /** The file or folder `path` was deleted (the server closed its documents): its tabs close. */
  closeDeleted(path: string): void {
    const gone = [...this.documents.values()].filter((document) => atOrUnder(document.path, path));
    if (gone.length === 0) return;
    for (const document of gone) this.documents.delete(document.path);
    this.recent = this.recent.filter((document) => !gone.includes(document));
    if (this.active && gone.includes(this.active)) this.activate(this.recent[0] ?? [...this.documents.values()].at(-1));
    this.renderTabs();
  }

  /** Renamed documents: the language the server finds from the new name, and the editor's label, in their states. */
  private async relabel(moved: OpenDocument[]): Promise<void> {
    const { documents } = await api<DocumentList>('GET', '/api/editor/documents').catch(() => ({ documents: [] as DocumentSummary[] }));
    for (const document of moved) {
      const summary = documents.find((candidate) => candidate.path === document.path);
      if (summary) {
        document.language = summary.language;
        document.readOnly = summary.readOnly;
      }
      // The same state fields (the text, undo history, selection) under the new configuration.
      const effects = StateEffect.reconfigure.of(this.extensions(document));
      if (this.active === document) this.view.dispatch({ effects });
      else document.state = document.state.update({ effects }).state;
    }
    if (this.active && moved.includes(this.active)) this.host.onActive(this.active);
  }

  /** Opens documents' summaries again: unsaved markers and conflicts as the server sees them. */
  async refreshSummaries(): Promise<void> {
    try {
      const { documents } = await api<DocumentList>('GET', '/api/editor/documents');
      for (const summary of documents) {
        const document = this.documents.get(summary.path);
        if (!document) continue;
        document.conflict = summary.conflict;
        if (!document.sync.busy) document.dirty = summary.dirty;
      }
      this.renderTabs();
      this.renderConflict();
    } catch {
      // The next event or request tells.
    }
  }

  private async load(summary: DocumentSummary): Promise<OpenDocument> {
    const text = await api<DocumentText>('GET', `/api/editor/text?path=${encodeURIComponent(summary.path)}`);
    const document: OpenDocument = {
      path: summary.path,
      language: summary.language,
      readOnly: summary.readOnly,
      dirty: summary.dirty,
      conflict: summary.conflict,
      state: EditorState.create(),
      sync: undefined as unknown as DocumentSync,
    };
    document.sync = new DocumentSync(summary.path, text, {
      doc: () => (this.active === document ? this.view.state.doc : document.state.doc),
      applyRemote: (changes) => this.applyRemote(document, changes),
      onProblem: (words) => this.host.notify(words, 'warning'),
      onResynced: () => {
        if (!document.sync.busy) void this.refreshOne(document);
      },
    });
    document.state = EditorState.create({ doc: document.sync.initialDoc, extensions: this.extensions(document) });
    this.documents.set(document.path, document);
    this.renderTabs();
    return document;
  }

  private async refreshOne(document: OpenDocument): Promise<void> {
    const { documents } = await api<DocumentList>('GET', '/api/editor/documents').catch(() => ({ documents: [] as DocumentSummary[] }));
    const summary = documents.find((candidate) => candidate.path === document.path);
    if (summary && !document.sync.busy) this.setDirty(document, summary.dirty);
  }

  private extensions(document: OpenDocument) {
    const language = new Compartment();
    return [
      editorSetup(this.wrap),
      keymap.of([
        {
          key: 'Mod-s',
          preventDefault: true,
          run: () => {
            void this.save(document);
            return true;
          },
        },
        { key: 'Alt-z', preventDefault: true, run: () => (this.toggleWrap(), true) },
      ]),
      language.of(languageMode(document.language)),
      EditorState.readOnly.of(document.readOnly),
      EditorView.contentAttributes.of({ 'aria-label': `Editor: ${document.path}` }),
      EditorView.updateListener.of((update) => {
        if (update.selectionSet || update.docChanged) {
          const head = update.state.selection.main.head;
          const line = update.state.doc.lineAt(head);
          this.host.onCursor(line.number, head - line.from + 1);
        }
        // A move without typing (a click, the arrows): the server's cursor follows, so that an
        // insert at the cursor (an extension's) lands where the user is. Typing moves it anyway.
        if (update.selectionSet && !update.docChanged) this.scheduleCursor(document);
        for (const tr of update.transactions) {
          if (!tr.docChanged || tr.annotation(remoteEdit)) continue;
          document.sync.local(tr.changes);
          this.setDirty(document, true);
        }
      }),
      ghostText({
        document: () => (document.readOnly ? undefined : { path: document.path, language: document.language }),
        onTiming: (timing) => this.host.onTiming(timing),
        onProblem: (words) => this.host.notify(words, 'warning'),
      }),
      this.host.documentExtensions?.(document) ?? [],
    ];
  }

  private cursorTimer: ReturnType<typeof setTimeout> | undefined;

  private scheduleCursor(document: OpenDocument): void {
    clearTimeout(this.cursorTimer);
    this.cursorTimer = setTimeout(() => void this.sendCursor(document), CURSOR_QUIET_MS);
  }

  private async sendCursor(document: OpenDocument): Promise<void> {
    await document.sync.flush();
    if (this.active !== document || document.sync.busy) return;
    const head = this.view.state.selection.main.head;
    const line = this.view.state.doc.lineAt(head);
    await api('POST', '/api/editor/cursor', { path: document.path, line: line.number, column: head - line.from + 1 }).catch(() => undefined);
  }

  private applyRemote(document: OpenDocument, changes: ChangeSpec): void {
    // Not the user's: kept out of their undo history (undo never takes back an agent's edit).
    const annotations = [remoteEdit.of(true), Transaction.addToHistory.of(false)];
    if (this.active === document) this.view.dispatch({ changes, annotations });
    else document.state = document.state.update({ changes, annotations }).state;
  }

  private activate(document: OpenDocument | undefined): void {
    if (this.active && this.active !== document) this.active.state = this.view.state;
    this.active = document;
    if (document && !this.cycling) this.recent = [document, ...this.recent.filter((other) => other !== document)];
    if (document) {
      this.view.setState(document.state);
      if (wraps(document.state) !== this.wrap) this.view.dispatch({ effects: wordWrap.reconfigure(wrapExtension(this.wrap)) });
    }
    this.showEditor(document !== undefined);
    this.renderTabs();
    this.renderConflict();
    this.host.onActive(document);
    if (document) {
      const head = this.view.state.selection.main.head;
      const line = this.view.state.doc.lineAt(head);
      this.host.onCursor(line.number, head - line.from + 1);
    }
  }

  private setDirty(document: OpenDocument, dirty: boolean): void {
    if (document.dirty === dirty) return;
    document.dirty = dirty;
    this.renderTabs();
  }

  private showEditor(show: boolean): void {
    this.empty.hidden = show;
    this.view.dom.parentElement!.hidden = !show;
  }

  private renderTabs(): void {
    fill(
      this.tabs,
      ...[...this.documents.values()].map((document) => {
        const name = document.path.split('/').at(-1)!;
        // The tab's name is a button (the active one aria-current); its close button sits beside it, not inside.
        return h(
          'div',
          {
            class: `tab${document === this.active ? ' active' : ''}${document.dirty ? ' dirty' : ''}`,
            title: document.path,
            'data-path': document.path,
            onclick: () => void this.switchTo(document),
            // The middle button closes, as in every editor.
            onauxclick: (event: Event) => {
              if ((event as MouseEvent).button === 1) void this.close(document);
            },
            onmousedown: (event: Event) => {
              if ((event as MouseEvent).button === 1) event.preventDefault();
            },
          },
          h(
            'button',
            {
              class: 'tab-name',
              'aria-current': document === this.active ? 'true' : undefined,
              'aria-label': document.dirty ? `${name}, unsaved` : name,
            },
            name,
          ),
          document.readOnly ? h('span', { class: 'tab-flag' }, 'read-only') : null,
          h('span', { class: 'unsaved', title: 'Unsaved changes', 'aria-hidden': 'true' }, document.dirty ? '●' : ''),
          h(
            'button',
            {
              class: 'tab-close',
              title: 'Close',
              'aria-label': `Close ${name}`,
              onclick: (event: Event) => {
                event.stopPropagation();
                void this.close(document);
              },
            },
            '×',
          ),
        );
      }),
    );
  }

  private async switchTo(document: OpenDocument, focus = true): Promise<void> {
    this.activate(document);
    this.tabs.querySelector('.tab.active')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    if (focus) this.view.focus();
    // The server's active document follows the window's (insert-at-cursor without a path goes there).
    await api('POST', '/api/editor/open', { path: document.path }).catch(() => undefined);
  }

  private renderConflict(): void {
    const document = this.active;
    this.conflictBar.hidden = !document?.conflict;
    if (!document?.conflict) return;
    fill(
      this.conflictBar,
      h('span', {}, `${document.path} changed on disk while you had unsaved edits.`),
      h('button', { class: 'reload', onclick: () => void this.reload(document) }, 'Reload from disk (drop my edits)'),
      h('button', { class: 'overwrite', onclick: () => void this.save(document, { overwrite: true }) }, 'Overwrite the file with mine'),
    );
  }
}

/** Whether `path` is `key` or lies in the folder `key`. */
function atOrUnder(path: string, key: string): boolean {
  return path === key || path.startsWith(`${key}/`);
}
