// What the window knows of the server's code intelligence: which language servers could serve
// which language and in what state, and how far the code index is (`GET /api/code/status`,
// `index:progress` events). The language features ask it before they ask a language server, so
// that a workspace where none runs (servers off, an untrusted workspace, a language nobody
// serves) costs no failing request: the browser would log each one as an error.
import type { CodeIndexStatus } from '../../contracts/code-resources.ts';
import { api } from '../api.ts';
import type { EventStream } from '../events.ts';
import { throttle } from '../throttle.ts';

export type LanguageServerState = CodeIndexStatus['languageServers'][number];
export type IndexState = CodeIndexStatus['index'];

/** How often the state is read again while nothing tells (a server started, went idle, restarted). */
const POLL_MS = 15_000;

/**
 * The server's code intelligence, as last read.
 *
 * @example
 *   const status = new CodeStatus(events);
 *   status.onChange = () => render(status.servers, status.index);
 *   await status.refresh();
 *   if (status.serves('typescript')) await api('GET', '/api/code/hover?…');
 */
export class CodeStatus {
  servers: LanguageServerState[] = [];
  index: IndexState | undefined;
  /** Whether the status route answered at all (an older server has none). */
  known = false;
  onChange: () => void = () => {};
  private readonly soon = throttle(() => void this.refresh(), 1000);
  /** After reports: typing makes one every few keystrokes, and a server's state changes far less often. */
  private readonly later = throttle(() => void this.refresh(), 5000);

  constructor(events: EventStream) {
    events.on('index:progress', (event) => {
      const progress = event.data as unknown as NonNullable<IndexState['progress']>;
      if (this.index) {
        this.index = { ...this.index, state: progress.phase === 'done' ? 'ready' : progress.phase === 'failed' ? 'failed' : 'building', progress };
        this.onChange();
      }
      // The totals (files, parsed) come with the status once the build is over.
      if (progress.phase === 'done' || progress.phase === 'failed') this.soon();
    });
    // A report means a server runs (it may have just started): its state is read again, at most every 5 s.
    events.on('diagnostics:change', () => this.later());
    events.onResync(() => this.soon());
    setInterval(() => {
      if (document.visibilityState === 'visible') void this.refresh();
    }, POLL_MS);
  }

  /** Reads the state again; a server that cannot answer leaves what was known. */
  async refresh(): Promise<void> {
    try {
      const status = await api<CodeIndexStatus>('GET', '/api/code/status?limit=0');
      this.servers = status.languageServers;
      this.index = status.index;
      this.known = true;
    } catch {
      // Unreachable for now (the events' status says so); the next look tells.
      return;
    }
    this.onChange();
  }

  /** The server of a language, if one is configured for it. */
  serverOf(language: string): LanguageServerState | undefined {
    return this.servers.find((server) => server.languages.includes(language));
  }

  /** Whether a language server may answer for the language (it runs, or will start when asked). */
  serves(language: string): boolean {
    const server = this.serverOf(language);
    return server !== undefined && server.state !== 'unavailable';
  }

  /** Whether the code index holds anything (it answers symbol searches and, by name, navigation). */
  get indexed(): boolean {
    return this.index !== undefined && this.index.state !== 'empty' && this.index.state !== 'failed';
  }
}
