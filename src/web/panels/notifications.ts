// Notifications: toasts that fade on their own, and the list of every one since the window
// opened. They come from the window itself (a failed save, a git error in words) and from the
// `notification` event (what extensions show with showNotification).
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';

export type Level = 'info' | 'warning' | 'error';

interface Notice {
  text: string;
  level: Level;
  source: string;
  time: Date;
}

/** How long a toast stays on screen. */
const TOAST_MS = 6000;

export class Notifications {
  readonly toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
  readonly element = h('section', { class: 'panel notifications-panel', 'aria-label': 'Notifications' });
  private readonly notices: Notice[] = [];
  onCount: (count: number) => void = () => {};

  constructor(events: EventStream) {
    events.on('notification', (event) => {
      const level = event.data['level'];
      this.show(String(event.data['text'] ?? ''), level === 'warning' || level === 'error' ? level : 'info', String(event.data['source'] ?? 'loom'));
    });
    this.render();
  }

  show(text: string, level: Level = 'info', source = 'window'): void {
    const notice = { text, level, source, time: new Date() };
    this.notices.unshift(notice);
    if (this.notices.length > 200) this.notices.pop();
    const toast = h('div', { class: `toast ${level}` }, h('span', { class: 'toast-source' }, source), h('span', { class: 'toast-text' }, text));
    toast.addEventListener('click', () => toast.remove());
    this.toasts.append(toast);
    setTimeout(() => toast.remove(), TOAST_MS);
    this.render();
    this.onCount(this.notices.length);
  }

  private render(): void {
    fill(
      this.element,
      h('div', { class: 'panel-title' }, 'Notifications'),
      this.notices.length === 0
        ? h('p', { class: 'muted' }, 'Nothing yet.')
        : h(
            'ul',
            { class: 'notice-list' },
            ...this.notices.map((notice) =>
              h(
                'li',
                { class: notice.level },
                h('time', {}, notice.time.toLocaleTimeString()),
                h('span', { class: 'toast-source' }, notice.source),
                h('span', { class: 'notice-text' }, notice.text),
              ),
            ),
          ),
    );
  }
}
