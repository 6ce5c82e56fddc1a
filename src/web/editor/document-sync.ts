// Keeps one open document of the window in step with the server's copy of it (the server's
// document is what saves, what agents and the API edit). The window's own edits go out as
// replace requests, coalesced while the user types; edits made elsewhere arrive as
// `file:change` events and are applied to the window's copy, moved past the user's edits not
// yet sent (CodeMirror's change mapping) so that the cursor and the user's text stay in place.
// When the two cannot be lined up (events missed, edits crossing in flight), the window reads
// the server's text again and applies the difference as one change: the cursor maps through it.
import { ChangeSet, Text, type ChangeSpec } from '@codemirror/state';
import type { DocumentText, EditResult, Position } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords, isTransient } from '../api.ts';

/** How long typing may go on before what was typed is sent anyway. */
const MAX_WAIT_MS = 1000;
/** Quiet time after a keystroke before it is sent. */
const QUIET_MS = 300;

export interface FileChangeEvent {
  path: string;
  version: number;
  from: Position;
  to: Position;
  text: string;
}

export interface SyncHost {
  /** The document as the user sees it now. */
  doc(): Text;
  /** Applies a change that came from elsewhere (the host marks it as remote). */
  applyRemote(changes: ChangeSpec): void;
  onProblem(words: string): void;
  /**
   * The window's copy was read again from the server (its unsaved state may have changed: a
   * reload from disk). Not called after the user's edits are sent: that costs no request.
   */
  onResynced(): void;
}

export class DocumentSync {
  /** The server's version of the document the window's `base` is. */
  private version: number;
  /** The document as the server has it at `version`. */
  private base: Text;
  /** The user's edits not sent yet, from `base`. */
  private pending: ChangeSet | undefined;
  private sending: Promise<void> | undefined;
  /** Events that arrived while a request was under way. */
  private held: FileChangeEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstUnsent = 0;
  private resyncing: Promise<void> | undefined;

  constructor(
    /** The document's path; a rename (the file tree's, another client's) changes it. */
    public path: string,
    text: DocumentText,
    private readonly host: SyncHost,
  ) {
    this.version = text.version;
    this.base = textOf(text.text);
  }

  /** The text the window's editor starts from (the server's, as CodeMirror splits lines). */
  get initialDoc(): Text {
    return this.base;
  }

  get serverVersion(): number {
    return this.version;
  }

  /** Edits the user made are waiting to be sent, or are under way. */
  get busy(): boolean {
    return this.pending !== undefined || this.sending !== undefined;
  }

  /** The user changed the document. */
  local(changes: ChangeSet): void {
    this.pending = this.pending ? this.pending.compose(changes) : changes;
    const now = Date.now();
    if (this.timer === undefined) this.firstUnsent = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.firstUnsent + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** Sends what waits, and resolves once the server has every edit the user made. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.sending || this.pending) {
      if (this.sending) {
        await this.sending;
        continue;
      }
      this.sending = this.send().finally(() => (this.sending = undefined));
    }
  }

  /** An edit made elsewhere (a `file:change` event for this document). */
  remote(event: FileChangeEvent): void {
    if (event.version <= this.version) return; // Ours, or already in.
    if (this.sending || this.resyncing) {
      this.held.push(event);
      return;
    }
    if (event.version !== this.version + 1) {
      void this.resync();
      return;
    }
    this.applyEvent(event);
  }

  /** Reads the server's text again and takes it (after sending what the user typed). */
  resync(): Promise<void> {
    return (this.resyncing ??= this.doResync().finally(() => (this.resyncing = undefined)));
  }

  private async doResync(): Promise<void> {
    try {
      for (;;) {
        await this.flush();
        const text = await api<DocumentText>('GET', `/api/editor/text?path=${encodeURIComponent(this.path)}`);
        // Typed while the text was read: send that first, then read again.
        if (this.pending || this.sending) continue;
        const server = textOf(text.text);
        const change = difference(this.host.doc(), server);
        this.base = server;
        this.version = text.version;
        if (change) this.host.applyRemote(change);
        break;
      }
    } catch (error) {
      this.host.onProblem(`${this.path}: ${inWords(error)}`);
    }
    const held = this.held.filter((event) => event.version > this.version);
    this.held = [];
    this.resyncing = undefined;
    for (const event of held) this.remote(event);
    this.host.onResynced();
  }

  /**
   * Takes in the server's text as it is now, as one remote change from `base` (the difference),
   * with the user's unsent edits moved past it: what the events would have done, had they all
   * arrived. Used when an edit was refused for a version that moved on.
   */
  private async rebase(): Promise<void> {
    try {
      const text = await api<DocumentText>('GET', `/api/editor/text?path=${encodeURIComponent(this.path)}`);
      const server = textOf(text.text);
      const spec = difference(this.base, server);
      if (spec) {
        const change = ChangeSet.of(spec, this.base.length);
        const onScreen = this.pending ? change.map(this.pending) : change;
        if (this.pending) this.pending = this.pending.map(change, true);
        this.host.applyRemote(onScreen);
      }
      this.base = server;
      this.version = text.version;
      this.held = this.held.filter((event) => event.version > text.version);
    } catch (error) {
      this.host.onProblem(`${this.path}: ${inWords(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  private applyEvent(event: FileChangeEvent): void {
    const from = offsetOf(this.base, event.from);
    const to = offsetOf(this.base, event.to);
    if (from === undefined || to === undefined || to < from) {
      void this.resync();
      return;
    }
    const change = ChangeSet.of({ from, to, insert: event.text }, this.base.length);
    this.base = change.apply(this.base);
    this.version = event.version;
    if (this.pending) {
      // The remote change, moved past the user's unsent edits; those, moved past it.
      const onScreen = change.map(this.pending);
      this.pending = this.pending.map(change, true);
      this.host.applyRemote(onScreen);
    } else {
      this.host.applyRemote(change);
    }
  }

  /** Sends the pending edits as one replace of the stretch they touch. */
  private async send(): Promise<void> {
    const changes = this.pending!;
    this.pending = undefined;
    let fromA = Infinity;
    let toA = -Infinity;
    let fromB = Infinity;
    let toB = -Infinity;
    changes.iterChangedRanges((a0, a1, b0, b1) => {
      fromA = Math.min(fromA, a0);
      toA = Math.max(toA, a1);
      fromB = Math.min(fromB, b0);
      toB = Math.max(toB, b1);
    });
    const after = changes.apply(this.base);
    if (fromA === Infinity) {
      this.base = after;
      return;
    }
    const start = positionOf(this.base, fromA);
    const end = positionOf(this.base, toA);
    try {
      const result = await api<EditResult>('POST', '/api/editor/replace', {
        path: this.path,
        text: after.sliceString(fromB, toB),
        startLine: start.line,
        startColumn: start.column,
        endLine: end.line,
        endColumn: end.column,
        // Positions are in this version: the server refuses the edit if another came first.
        version: this.version,
      });
      const crossed = result.version !== this.version + 1;
      this.base = after;
      this.version = result.version;
      const held = this.held.filter((event) => event.version > result.version);
      this.held = [];
      // Edits made elsewhere landed before ours: ours went in at positions computed without
      // them. The server's text is the truth.
      if (crossed) {
        void this.resync();
        return;
      }
      for (const event of held) this.remote(event);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VERSION_CONFLICT') {
        // Another edit came first: take it in, move the user's edits past it, send them again.
        this.pending = this.pending ? changes.compose(this.pending) : changes;
        await this.rebase();
        return;
      }
      if (isTransient(error)) {
        // Kept, with what was typed since, and sent again after a pause: typing is never lost
        // to a rate limit or a server that is restarting.
        this.pending = this.pending ? changes.compose(this.pending) : changes;
        this.host.onProblem(`${this.path}: ${inWords(error)} Your edits are kept and sent again.`);
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, error.retryAfter ?? 2) * 1000));
        return;
      }
      // Refused for good (the document was closed, is read-only…): the server's text is the truth.
      this.host.onProblem(`${this.path}: ${inWords(error)}`);
      this.held = [];
      void this.resync();
    }
  }
}

/** A string as CodeMirror holds it: lines split at \n, \r\n or \r, as the editor splits them. */
export function textOf(text: string): Text {
  return Text.of(text.split(/\r\n?|\n/));
}

function positionOf(doc: Text, offset: number): Position {
  const line = doc.lineAt(offset);
  return { line: line.number, column: offset - line.from + 1 };
}

function offsetOf(doc: Text, position: Position): number | undefined {
  if (position.line < 1 || position.line > doc.lines) return undefined;
  const line = doc.line(position.line);
  if (position.column < 1 || position.column > line.length + 1) return undefined;
  return line.from + position.column - 1;
}

/** The one change that turns `from` into `to` (common start and end kept); undefined when equal. */
export function difference(from: Text, to: Text): ChangeSpec | undefined {
  const a = from.toString();
  const b = to.toString();
  if (a === b) return undefined;
  let start = 0;
  const shorter = Math.min(a.length, b.length);
  while (start < shorter && a.charCodeAt(start) === b.charCodeAt(start)) start += 1;
  let end = 0;
  while (end < shorter - start && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)) end += 1;
  return { from: start, to: a.length - end, insert: b.slice(start, b.length - end) };
}
