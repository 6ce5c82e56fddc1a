// The workspace's file tree. Folders open on click and are read from GET /api/files; the tree
// follows the disk from the event stream: it reads its open folders again when a `disk:change`
// names a path in one of them (another program wrote, created or removed it), and after a
// save, an agent's end or a commit. Each read draws on the local API's budget of 120 requests
// a minute, which the window shares with every other client: a burst of changes (a build) is
// one read every 2 seconds at most. Folders the server does not watch (node_modules, build
// output) are read again when the window gets the focus back.
//
// File operations (issue 27): a context menu on an item or on the tree's empty space (New
// File, New Folder, Rename, Delete; also Shift+F10 or the menu key), F2 and Delete on the
// focused item, and the same commands in the palette. New names and renames are typed in
// the tree, where the entry is (Enter commits, Escape cancels); a deletion asks first. They
// go through the local API (POST /api/files/*), which refuses what it must (protected paths,
// names taken): the window says its words. The tabs follow renames and close on deletions
// (the Workbench, from the answer and from the events other clients' operations cause).
import type { FolderEntry, FolderListing } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { throttle } from '../throttle.ts';
import { ContextMenu, confirmDialog, createEntry, deleteEntry, folderOf, isAtOrUnder, joinPath, renameEntry, type MenuItem } from './file-actions.ts';
import type { PaletteCommand } from './palette.ts';

/** Least time between two reads the disk's changes cause. */
const DISK_REFRESH_MS = 2000;

/** What the tree's file operations need of the editor's tabs (the Workbench). */
export interface TreeTabs {
  /** Sends the edits typed in the documents at or under `path` (a rename must move them all). */
  flushUnder(path: string): Promise<void>;
  /** The documents at or under `path` with unsaved edits. */
  dirtyUnder(path: string): string[];
  /** The tabs at or under `from` now stand for their files under `to`. */
  followRename(from: string, to: string): void;
  /** The tabs at or under `path` close: their files are gone. */
  closeDeleted(path: string): void;
}

/** The name being typed in the tree: a new entry in `folder`, or a new name for `path`. */
type Editing = { mode: 'new'; kind: 'file' | 'folder'; folder: string } | { mode: 'rename'; path: string; kind: 'file' | 'folder' };

export class FileTree {
  readonly element = h('nav', { class: 'file-tree', 'aria-label': 'Files' });
  private readonly expanded = new Set<string>(['']);
  private readonly listings = new Map<string, FolderEntry[]>();
  private refreshing: Promise<void> | undefined;
  /** A change came while a read was under way: read again once it ends. */
  private again = false;
  private readonly menu = new ContextMenu();
  /** The name being typed; the tree is not redrawn meanwhile (that would take the field away). */
  private editing: Editing | undefined;
  private redrawAfterEditing = false;
  /** The item last focused or clicked: what the palette's Rename and Delete act on. */
  private selected: FolderEntry | undefined;

  constructor(
    private readonly openFile: (path: string) => void,
    private readonly onProblem: (words: string) => void,
    events: EventStream,
    private readonly tabs?: TreeTabs,
    /** Shows the Files bar (the palette's commands type the name in the tree). */
    private readonly reveal: () => void = () => {},
  ) {
    for (const type of ['file:save', 'agent:complete', 'git:commit', 'file:create']) events.on(type, () => void this.refresh());
    // Open folders that moved stay open where they are now; those deleted are not read again.
    events.on('file:rename', (event) => {
      this.followRename(String(event.data['from']), String(event.data['to']));
      void this.refresh();
    });
    events.on('file:delete', (event) => {
      this.forget(String(event.data['path']));
      void this.refresh();
    });
    this.element.addEventListener('contextmenu', (event) => this.onContextMenu(event));
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.element.addEventListener('focusin', (event) => {
      const entry = this.entryOf(event.target);
      if (entry) this.selected = entry;
    });
    const refreshSoon = throttle(() => void this.refresh(), DISK_REFRESH_MS);
    events.on('disk:change', (event) => {
      if (this.shows(event.data['paths'], event.data['more'] !== undefined)) refreshSoon();
    });
    events.onResync(() => void this.refresh());
    window.addEventListener('focus', () => void this.refresh());
  }

  /** Reads every open folder again and redraws. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    return (this.refreshing = this.readAll().finally(() => {
      this.refreshing = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    }));
  }

  /** Whether a change to one of `paths` shows in the tree: its folder is open (or the event named too many to tell). */
  private shows(paths: unknown, more: boolean): boolean {
    if (more || !Array.isArray(paths)) return true;
    return paths.some((changed) => typeof changed === 'string' && this.expanded.has(changed.includes('/') ? changed.slice(0, changed.lastIndexOf('/')) : ''));
  }

  /** Every file path the tree knows (the palette's "open file" lists them). */
  knownFiles(): string[] {
    return [...this.listings.values()]
      .flat()
      .filter((entry) => entry.kind === 'file')
      .map((entry) => entry.path);
  }

  private async readAll(): Promise<void> {
    for (const folder of [...this.expanded]) {
      // Closed or deleted while the folders before it were read: not asked for.
      if (!this.expanded.has(folder)) continue;
      try {
        const listing = await api<FolderListing>('GET', `/api/files?path=${encodeURIComponent(folder)}`);
        this.listings.set(folder, listing.entries);
      } catch (error) {
        // A folder that is gone closes.
        this.expanded.delete(folder);
        this.listings.delete(folder);
        if (folder === '') this.onProblem(`The file tree: ${inWords(error)}`);
      }
    }
    this.render();
  }

  private async toggle(folder: string): Promise<void> {
    if (this.expanded.has(folder)) {
      this.expanded.delete(folder);
      this.render();
      return;
    }
    this.expanded.add(folder);
    await this.refresh();
  }

  private render(): void {
    if (this.editing) {
      this.redrawAfterEditing = true;
      return;
    }
    this.draw();
  }

  /** Draws the tree anew (the focused item keeps the focus: `fill`). */
  private draw(): HTMLInputElement | undefined {
    const field: { input?: HTMLInputElement } = {};
    fill(this.element, h('div', { class: 'panel-title' }, 'Files'), this.list('', field));
    return field.input;
  }

  private list(folder: string, field: { input?: HTMLInputElement }): HTMLElement {
    const entries = this.listings.get(folder) ?? [];
    const editing = this.editing;
    const adding = editing?.mode === 'new' && editing.folder === folder ? this.inputRow(editing, field) : null;
    return h(
      'ul',
      { role: folder === '' ? 'tree' : 'group' },
      adding,
      ...entries.map((entry) => {
        const open = entry.kind === 'folder' && this.expanded.has(entry.path);
        const renaming = editing?.mode === 'rename' && editing.path === entry.path;
        const label = renaming
          ? this.inputRow(editing, field, entry.name)
          : h(
              'button',
              {
                class: `tree-item ${entry.kind}${open ? ' open' : ''}`,
                'data-path': entry.path,
                'data-kind': entry.kind,
                title: entry.path,
                onclick: () => {
                  this.selected = entry;
                  if (entry.kind === 'folder') void this.toggle(entry.path);
                  else this.openFile(entry.path);
                },
              },
              entry.name,
            );
        return h(
          'li',
          { role: 'treeitem', 'aria-expanded': entry.kind === 'folder' ? String(open) : undefined },
          label,
          open ? this.list(entry.path, field) : null,
        );
      }),
    );
  }

  /** The field a name is typed in: Enter commits, Escape cancels, leaving it commits what is typed (as VS Code does). */
  private inputRow(editing: Editing, field: { input?: HTMLInputElement }, current = ''): HTMLElement {
    const what = editing.mode === 'rename' ? `New name for ${editing.path}` : `Name of the new ${editing.kind}${editing.folder ? ` in ${editing.folder}` : ''}`;
    const input = h('input', { class: 'tree-input', 'aria-label': what, value: current, spellcheck: 'false', autocomplete: 'off' });
    let settled = false;
    const settle = (commit: boolean) => {
      if (settled) return;
      settled = true;
      void this.finishEditing(editing, commit ? input.value.trim() : '');
    };
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Enter') settle(true);
      else if (event.key === 'Escape') settle(false);
      else return;
      event.preventDefault();
    });
    // The window losing the focus (another application) is no answer: the field waits for its return.
    input.addEventListener('blur', () => {
      if (document.hasFocus()) settle(true);
    });
    field.input = input;
    return h('div', { class: 'tree-input-row' }, h('span', { class: 'tree-input-kind', 'aria-hidden': 'true' }, editing.kind === 'folder' ? '▸' : ''), input);
  }

  /** Starts typing a name in the tree (the folder opened first for a new entry). */
  private async startEditing(editing: Editing): Promise<void> {
    this.menu.close(false);
    this.reveal();
    // The folders on the way open first: the name is typed where the entry shows.
    const folder = editing.mode === 'new' ? editing.folder : folderOf(editing.path);
    const closed = folder
      .split('/')
      .map((_, index, names) => names.slice(0, index + 1).join('/'))
      .filter((ancestor) => ancestor !== '' && !this.expanded.has(ancestor));
    if (closed.length > 0) {
      for (const ancestor of closed) this.expanded.add(ancestor);
      await this.refresh();
    }
    this.editing = editing;
    const input = this.draw();
    if (!input) {
      this.editing = undefined;
      return;
    }
    input.focus();
    // A rename selects the name without its extension, as VS Code does.
    const dot = input.value.lastIndexOf('.');
    input.setSelectionRange(0, editing.mode === 'rename' && editing.kind === 'file' && dot > 0 ? dot : input.value.length);
  }

  private async finishEditing(editing: Editing, name: string): Promise<void> {
    this.editing = undefined;
    const target = editing.mode === 'new' ? joinPath(editing.folder, name) : joinPath(folderOf(editing.path), name);
    const unchanged = name === '' || (editing.mode === 'rename' && target === editing.path);
    this.redrawAfterEditing = false;
    this.draw();
    if (unchanged) return this.focusItem(editing.mode === 'rename' ? editing.path : undefined);
    if (editing.mode === 'new') {
      try {
        const created = await createEntry(target, editing.kind);
        if (created.kind === 'folder') this.expanded.add(created.path);
        await this.refresh();
        if (created.kind === 'file') this.openFile(created.path);
        else this.focusItem(created.path);
      } catch (error) {
        this.onProblem(`Could not create ${target}: ${inWords(error)}`);
      }
      return;
    }
    await this.rename(editing.path, target);
  }

  /** Renames `from` to `to`: what was typed in its tabs is sent first, then they follow. */
  private async rename(from: string, to: string): Promise<void> {
    const open = this.letGo(from);
    try {
      await this.tabs?.flushUnder(from);
      const renamed = await renameEntry(from, to);
      this.tabs?.followRename(renamed.from, renamed.to);
      this.followRename(renamed.from, renamed.to);
      for (const folder of open) this.expanded.add(renamed.to + folder.slice(renamed.from.length));
      await this.refresh();
      this.focusItem(renamed.to);
    } catch (error) {
      for (const folder of open) this.expanded.add(folder);
      void this.refresh();
      this.onProblem(`Could not rename ${from}: ${inWords(error)}`);
      this.focusItem(from);
    }
  }

  /**
   * Closes the open folders at or under `path` before an operation moves or deletes it, so that
   * a read of the tree meanwhile does not ask for them; answers them, to open again after.
   */
  private letGo(path: string): string[] {
    const open = [...this.expanded].filter((folder) => folder !== '' && isAtOrUnder(folder, path));
    for (const folder of open) this.expanded.delete(folder);
    return open;
  }

  /** Deletes `entry` once the user says so; unsaved edits in its tabs are named in the question. */
  private async remove(entry: { path: string; kind: 'file' | 'folder' }): Promise<void> {
    this.menu.close(false);
    const unsaved = this.tabs?.dirtyUnder(entry.path) ?? [];
    const question = entry.kind === 'folder' ? `Delete the folder ${entry.path} and everything in it?` : `Delete ${entry.path}?`;
    const detail = `It is deleted for good, not moved to a trash.${unsaved.length ? ` Unsaved changes in ${unsaved.join(', ')} are lost.` : ''}`;
    if (!(await confirmDialog(question, detail, 'Delete'))) return;
    const open = this.letGo(entry.path);
    try {
      const deleted = await deleteEntry(entry.path, unsaved.length > 0);
      this.tabs?.closeDeleted(deleted.path);
      this.forget(deleted.path);
      await this.refresh();
    } catch (error) {
      for (const folder of open) this.expanded.add(folder);
      void this.refresh();
      // Edits typed since the question was asked: say so rather than lose them.
      const words = error instanceof ApiError && error.code === 'UNSAVED_CHANGES' ? `${error.message} Save or close them, then delete again.` : inWords(error);
      this.onProblem(`Could not delete ${entry.path}: ${words}`);
    }
  }

  /** `from` is now `to`: its open folders stay open under the new name. */
  private followRename(from: string, to: string): void {
    for (const folder of [...this.expanded]) {
      if (folder === '' || !isAtOrUnder(folder, from)) continue;
      this.expanded.delete(folder);
      this.listings.delete(folder);
      this.expanded.add(to + folder.slice(from.length));
    }
    if (this.selected && isAtOrUnder(this.selected.path, from)) this.selected = undefined;
  }

  /** `path` was deleted: its folders are not read again. */
  private forget(path: string): void {
    for (const folder of [...this.expanded]) {
      if (folder === '' || !isAtOrUnder(folder, path)) continue;
      this.expanded.delete(folder);
      this.listings.delete(folder);
    }
    if (this.selected && isAtOrUnder(this.selected.path, path)) this.selected = undefined;
  }

  private onContextMenu(event: MouseEvent): void {
    if ((event.target as Element).closest('.tree-input-row')) return;
    event.preventDefault();
    const entry = this.entryOf(event.target);
    const item = (event.target as Element).closest<HTMLElement>('.tree-item') ?? this.element;
    if (entry) this.selected = entry;
    this.showMenu(entry, event.clientX, event.clientY, item);
  }

  private showMenu(entry: FolderEntry | undefined, x: number, y: number, returnFocus: HTMLElement): void {
    const folder = entry ? (entry.kind === 'folder' ? entry.path : folderOf(entry.path)) : '';
    const items: MenuItem[] = [
      { label: 'New File…', action: 'new-file', run: () => this.startEditing({ mode: 'new', kind: 'file', folder }) },
      { label: 'New Folder…', action: 'new-folder', run: () => this.startEditing({ mode: 'new', kind: 'folder', folder }) },
    ];
    if (entry) {
      items.push(
        { label: 'Rename…', shortcut: 'F2', action: 'rename', run: () => this.startEditing({ mode: 'rename', path: entry.path, kind: entry.kind }) },
        { label: 'Delete', shortcut: 'Delete', action: 'delete', run: () => this.remove(entry) },
      );
    }
    this.menu.show(x, y, items, returnFocus, entry ? `Actions on ${entry.path}` : 'Actions on the workspace folder');
  }

  /** F2 renames, Delete deletes the focused item; Shift+F10 and the menu key open its menu. */
  private onKey(event: KeyboardEvent): void {
    const entry = this.entryOf(event.target);
    if (!entry || event.ctrlKey || event.metaKey || event.altKey) return;
    const item = event.target as HTMLElement;
    if (event.key === 'F2') void this.startEditing({ mode: 'rename', path: entry.path, kind: entry.kind });
    else if (event.key === 'Delete') void this.remove(entry);
    else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) {
      const box = item.getBoundingClientRect();
      this.showMenu(entry, box.left + 16, box.bottom, item);
    } else return;
    event.preventDefault();
  }

  /** The entry a tree item (or something in it) stands for. */
  private entryOf(target: EventTarget | null): FolderEntry | undefined {
    const item = (target as Element | null)?.closest?.<HTMLElement>('.tree-item');
    const path = item?.dataset['path'];
    if (!item || path === undefined) return undefined;
    return { name: item.textContent ?? '', path, kind: item.dataset['kind'] === 'folder' ? 'folder' : 'file' };
  }

  /** Puts the focus on the item of `path` when it shows (after an operation, as the keyboard user expects). */
  private focusItem(path: string | undefined): void {
    if (this.redrawAfterEditing) {
      this.redrawAfterEditing = false;
      this.draw();
    }
    if (path !== undefined) this.itemOf(path)?.focus();
  }

  /** The tree's item for `path`, when it shows. */
  private itemOf(path: string): HTMLElement | undefined {
    return [...this.element.querySelectorAll<HTMLElement>('.tree-item')].find((candidate) => candidate.dataset['path'] === path);
  }

  /**
   * The palette's file commands: they act on the tree's selected item, else on the active
   * document (`active`); new entries go in the selected folder (or the selected file's).
   */
  paletteCommands(active: () => string | undefined): PaletteCommand[] {
    const target = (): { path: string; kind: 'file' | 'folder' } | undefined => this.selected ?? (active() ? { path: active()!, kind: 'file' } : undefined);
    const folder = () => {
      const chosen = target();
      return chosen ? (chosen.kind === 'folder' ? chosen.path : folderOf(chosen.path)) : '';
    };
    const needTarget = (then: (chosen: { path: string; kind: 'file' | 'folder' }) => unknown) => () => {
      const chosen = target();
      if (!chosen) return this.onProblem('Select a file or a folder in the tree first (or open a file).');
      return then(chosen);
    };
    return [
      { name: 'loom.files.newFile', title: 'File: New File…', source: 'loom', run: () => this.startEditing({ mode: 'new', kind: 'file', folder: folder() }) },
      {
        name: 'loom.files.newFolder',
        title: 'File: New Folder…',
        source: 'loom',
        run: () => this.startEditing({ mode: 'new', kind: 'folder', folder: folder() }),
      },
      {
        name: 'loom.files.rename',
        title: 'File: Rename… (F2 in the tree)',
        source: 'loom',
        run: needTarget((chosen) => this.startEditing({ mode: 'rename', path: chosen.path, kind: chosen.kind })),
      },
      { name: 'loom.files.delete', title: 'File: Delete (Delete in the tree)', source: 'loom', run: needTarget((chosen) => this.remove(chosen)) },
    ];
  }
}
