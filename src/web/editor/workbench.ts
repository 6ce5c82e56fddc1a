// The editor area: one CodeMirror view, one editor state per open document (switching tabs
// swaps states, so each keeps its undo history, selection and scroll), the tabs with their
// unsaved markers, saving (Ctrl/Cmd+S) and the way out of a conflict with the disk. The
// window's tabs are the server's open documents: opening, closing and saving go through the
// local API, so what the API, agents and the window see is one set of documents.
import { autocompletion } from '@codemirror/autocomplete';
import { indentWithTab } from '@codemirror/commands';
import { Compartment, EditorState, Transaction, type ChangeSpec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import type { ClosedDocument, DocumentList, DocumentSummary, DocumentText } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { remoteEdit } from './annotations.ts';
import { DocumentSync, type FileChangeEvent } from './document-sync.ts';
import { ghostText, type CompletionTiming } from './ghost-text.ts';
import { throttle } from '../throttle.ts';
import { languageMode } from './languages.ts';

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
  private readonly tabs = h('div', { class: 'tabs', role: 'tablist' });
  private readonly conflictBar = h('div', { class: 'conflict-bar', hidden: true, role: 'alert' });
  private readonly empty = h('div', { class: 'editor-empty' }, 'Open a file from the tree, or press Ctrl+Shift+P.');
  private readonly view: EditorView;
  private readonly documents = new Map<string, OpenDocument>();
  private active: OpenDocument | undefined;

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

  /** The editor view (the palette's commands act on it). */
  get editorView(): EditorView {
    return this.view;
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
    if (this.active === document) this.activate(closed.active ? this.documents.get(closed.active) : [...this.documents.values()].at(-1));
    this.renderTabs();
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
      basicSetup,
      // Ghost text is the completion as you type; CodeMirror's list of words comes on Ctrl+Space only.
      autocompletion({ activateOnTyping: false }),
      keymap.of([
        {
          key: 'Mod-s',
          preventDefault: true,
          run: () => {
            void this.save(document);
            return true;
          },
        },
        indentWithTab,
      ]),
      language.of(languageMode(document.language)),
      EditorState.readOnly.of(document.readOnly),
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
    if (document) this.view.setState(document.state);
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
        return h(
          'div',
          {
            class: `tab${document === this.active ? ' active' : ''}${document.dirty ? ' dirty' : ''}`,
            role: 'tab',
            'aria-selected': document === this.active ? 'true' : 'false',
            title: document.path,
            'data-path': document.path,
            onclick: () => void this.switchTo(document),
          },
          h('span', { class: 'tab-name' }, name),
          document.readOnly ? h('span', { class: 'tab-flag' }, 'read-only') : null,
          h('span', { class: 'unsaved', title: 'Unsaved changes', 'aria-label': document.dirty ? 'unsaved' : undefined }, document.dirty ? '●' : ''),
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

  private async switchTo(document: OpenDocument): Promise<void> {
    this.activate(document);
    // The server's active document follows the window's (insert-at-cursor without a path goes there).
    await api('POST', '/api/editor/open', { path: document.path }).catch(() => undefined);
    this.view.focus();
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
