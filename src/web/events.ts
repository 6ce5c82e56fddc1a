// The event stream (/events) for the window: the browser sends the session cookie with the
// upgrade. Reconnects with a growing delay; tells its listeners when it (re)connects and when
// `seq` jumps (events were dropped), so they re-read what they show.
import type { EventMessage } from '../contracts/local-resources.ts';

export interface LoomEventMessage {
  seq: number;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

type Listener = (event: LoomEventMessage) => void;

export class EventStream {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly resyncListeners = new Set<() => void>();
  private lastSeq = 0;
  private delay = 500;
  private socket: WebSocket | undefined;
  private closed = false;
  /** Whether the socket is open (the status bar shows it). */
  connected = false;
  onStatus: (connected: boolean) => void = () => {};

  connect(): void {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/events`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.addEventListener('message', (message) => this.receive(String(message.data)));
    socket.addEventListener('close', () => {
      this.setConnected(false);
      if (this.closed) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 10_000);
    });
  }

  close(): void {
    this.closed = true;
    this.socket?.close();
  }

  /** Listens to one event type ('*' for every one). */
  on(type: string, listener: Listener): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
  }

  /** Called on every (re)connection and on a gap in `seq`: state seen so far may be stale. */
  onResync(listener: () => void): void {
    this.resyncListeners.add(listener);
  }

  private setConnected(connected: boolean): void {
    this.connected = connected;
    this.onStatus(connected);
  }

  private receive(raw: string): void {
    let message: EventMessage;
    try {
      message = JSON.parse(raw) as EventMessage;
    } catch {
      return;
    }
    if (message.type === 'hello') {
      const reconnect = this.lastSeq !== 0;
      this.lastSeq = message.seq;
      this.delay = 500;
      this.setConnected(true);
      if (reconnect) this.resync();
      return;
    }
    const event = message as LoomEventMessage;
    const gap = this.lastSeq !== 0 && event.seq !== this.lastSeq + 1;
    this.lastSeq = event.seq;
    for (const listener of [...(this.listeners.get(event.type) ?? []), ...(this.listeners.get('*') ?? [])]) listener(event);
    if (gap) this.resync();
  }

  private resync(): void {
    for (const listener of this.resyncListeners) listener();
  }
}
