// The workspace's file tree. Folders open on click and are read from GET /api/files; the tree
// follows the disk by reading its open folders again when something may have changed them
// (a save, an agent's end, a commit, a pull) and every 10 seconds while the window is visible (each read draws on the local API's
// budget of 120 requests a minute, which the window shares with every other client).
import type { FolderEntry, FolderListing } from '../../contracts/local-resources.ts';
import { api, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';

/** How often open folders are read again while the window is visible. */
const POLL_MS = 10_000;

export class FileTree {
  readonly element = h('nav', { class: 'file-tree', 'aria-label': 'Files' });
  private readonly expanded = new Set<string>(['']);
  private readonly listings = new Map<string, FolderEntry[]>();
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly openFile: (path: string) => void,
    private readonly onProblem: (words: string) => void,
    events: EventStream,
  ) {
    for (const type of ['file:save', 'agent:complete', 'git:commit']) events.on(type, () => void this.refresh());
    events.onResync(() => void this.refresh());
    setInterval(() => {
      if (document.visibilityState === 'visible') void this.refresh();
    }, POLL_MS);
  }

  /** Reads every open folder again and redraws. */
  refresh(): Promise<void> {
    return (this.refreshing ??= this.readAll().finally(() => (this.refreshing = undefined)));
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
    fill(this.element, h('div', { class: 'panel-title' }, 'Files'), this.list(''));
  }

  private list(folder: string): HTMLElement {
    const entries = this.listings.get(folder) ?? [];
    return h(
      'ul',
      { role: folder === '' ? 'tree' : 'group' },
      ...entries.map((entry) => {
        const open = entry.kind === 'folder' && this.expanded.has(entry.path);
        const label = h(
          'button',
          {
            class: `tree-item ${entry.kind}${open ? ' open' : ''}`,
            'data-path': entry.path,
            title: entry.path,
            onclick: () => (entry.kind === 'folder' ? void this.toggle(entry.path) : this.openFile(entry.path)),
          },
          entry.name,
        );
        return h('li', { role: 'treeitem', 'aria-expanded': entry.kind === 'folder' ? String(open) : undefined }, label, open ? this.list(entry.path) : null);
      }),
    );
  }
}
