// The workspace's file tree. Folders open on click and are read from GET /api/files; the tree
// follows the disk from the event stream: it reads its open folders again when a `disk:change`
// names a path in one of them (another program wrote, created or removed it), and after a
// save, an agent's end or a commit. Each read draws on the local API's budget of 120 requests
// a minute, which the window shares with every other client: a burst of changes (a build) is
// one read every 2 seconds at most. Folders the server does not watch (node_modules, build
// output) are read again when the window gets the focus back.
import type { FolderEntry, FolderListing } from '../../contracts/local-resources.ts';
import { api, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { throttle } from '../throttle.ts';

/** Least time between two reads the disk's changes cause. */
const DISK_REFRESH_MS = 2000;

export class FileTree {
  readonly element = h('nav', { class: 'file-tree', 'aria-label': 'Files' });
  private readonly expanded = new Set<string>(['']);
  private readonly listings = new Map<string, FolderEntry[]>();
  private refreshing: Promise<void> | undefined;
  /** A change came while a read was under way: read again once it ends. */
  private again = false;

  constructor(
    private readonly openFile: (path: string) => void,
    private readonly onProblem: (words: string) => void,
    events: EventStream,
  ) {
    for (const type of ['file:save', 'agent:complete', 'git:commit']) events.on(type, () => void this.refresh());
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
