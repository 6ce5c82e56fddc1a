// The local event stream: every event gets the next sequence number and a time, then goes to
// every subscriber (the WebSocket clients, the webhook outbox). Subscribers must be quick;
// slow consumers keep their own bounded queues.
import { systemClock, type Clock } from '../clock.ts';

export const EVENT_TYPES = [
  'file:open',
  'file:change',
  'file:save',
  'file:create',
  'file:rename',
  'file:delete',
  'disk:change',
  'diagnostics:change',
  'ai:complete',
  'agent:start',
  'agent:message',
  'agent:step',
  'agent:approval',
  'agent:complete',
  'git:commit',
  'git:progress',
  'notification',
  'index:progress',
  'composer:status',
  'composer:progress',
  'composer:apply',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/**
 * Events for the live stream only, never for webhooks: `file:change` comes with every edit
 * (a keystroke of the window) and carries the code itself, which no webhook should receive;
 * `disk:change` comes with every burst of writes another program makes (a build, a checkout);
 * `diagnostics:change` with every report of a language server (each edit), quoting the code;
 * `index:progress` several times a second while the code index builds; `git:progress` the
 * same while a push or a pull runs; `composer:progress` with each step of a composer session.
 */
export const LIVE_ONLY_EVENTS = [
  'file:change',
  'disk:change',
  'diagnostics:change',
  'index:progress',
  'git:progress',
  'composer:progress',
] as const satisfies readonly (typeof EVENT_TYPES)[number][];
/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPES.filter((type) => !(LIVE_ONLY_EVENTS as readonly string[]).includes(type));

export interface LoomEvent {
  /** Increases by one per event, so a client can tell it missed some. */
  seq: number;
  type: EventType;
  /** ISO 8601. */
  time: string;
  data: Record<string, unknown>;
}

export type EventListener = (event: LoomEvent) => void | Promise<void>;

export class EventBus {
  private seq = 0;
  private readonly listeners = new Set<EventListener>();
  /** Listeners that must finish before `emit` resolves (the durable webhook outbox). */
  private readonly durableListeners = new Set<EventListener>();

  constructor(private readonly clock: Clock = systemClock) {}

  get lastSeq(): number {
    return this.seq;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A listener whose work (e.g. queueing webhooks durably) is done before the event is acknowledged; it never sees LIVE_ONLY_EVENTS. */
  subscribeDurable(listener: EventListener): () => void {
    this.durableListeners.add(listener);
    return () => this.durableListeners.delete(listener);
  }

  /** Emits an event; resolves once durable listeners have recorded it. */
  async emit(type: EventType, data: Record<string, unknown>): Promise<LoomEvent> {
    const event: LoomEvent = { seq: ++this.seq, type, time: new Date(this.clock.now()).toISOString(), data };
    // Durable listeners (the webhook outbox) never see live-only events.
    if (!(LIVE_ONLY_EVENTS as readonly string[]).includes(type)) await Promise.all([...this.durableListeners].map((listener) => listener(event)));
    for (const listener of this.listeners) {
      try {
        void listener(event);
      } catch {
        // A failing live listener must not stop the others or the emitter.
      }
    }
    return event;
  }
}
