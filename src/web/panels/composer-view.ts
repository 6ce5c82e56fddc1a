// The Composer view: the window's composer sessions (docs/composer.md, "In the window"), run by
// the hosted API beside the app under `loom up`. Start one from a prompt and the files it may
// change, follow it live (`composer:progress`, `composer:status`), read its plan, steps and
// each file's diff, cancel it, continue it with a message once it has ended, and apply its
// edits to the workspace. Under `loom serve` alone
// the routes answer COMPOSER_UNAVAILABLE, and the view says what to do instead.
import type { ComposerSession } from '../../contracts/composer.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import './composer-view.css';

interface SessionEntry {
  sessionId: string;
  status: string;
  mode: string;
  prompt: string;
  edits: number;
}

interface SessionEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

const ACTIVE = ['queued', 'running'];

export class ComposerPanel {
  readonly element = h('section', { class: 'panel composer-panel', 'aria-label': 'Composer' });
  private readonly prompt = h('textarea', { id: 'composer-prompt', rows: 3, placeholder: 'What should change, across files?', 'aria-label': 'Prompt' });
  private readonly globs = h('input', { id: 'composer-files', placeholder: 'Files it may change, e.g. src/**', 'aria-label': 'Files (globs)' });
  private readonly planOnly = h('input', { type: 'checkbox', id: 'composer-plan' });
  private readonly problem = h('p', { class: 'composer-problem', role: 'alert' });
  private readonly list = h('ul', { class: 'composer-sessions', 'aria-label': 'Sessions' });
  private readonly detail = h('div', { class: 'composer-detail' });
  private selected: string | undefined;
  private events: SessionEvent[] = [];
  /** Set while the session's events are being read, so that two reads do not interleave. */
  private reading: Promise<void> | undefined;

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    stream: EventStream,
  ) {
    const form = h(
      'form',
      { class: 'composer-form' },
      this.prompt,
      this.globs,
      h('label', { class: 'composer-plan' }, this.planOnly, ' Plan only (change nothing)'),
      h('button', { type: 'submit', id: 'composer-start' }, 'Start session'),
      this.problem,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.start();
    });
    fill(this.element, h('div', { class: 'panel-title' }, 'Composer'), form, this.list, this.detail);
    stream.on('composer:progress', (event) => {
      if (event.data['sessionId'] === this.selected) void this.readEvents();
    });
    stream.on('composer:status', (event) => {
      void this.refreshList();
      const selected = this.selected;
      if (selected !== undefined && event.data['sessionId'] === selected) void this.show(selected);
    });
    stream.onResync(() => {
      void this.refreshList();
      if (this.selected) void this.show(this.selected);
    });
  }

  async refreshList(): Promise<void> {
    try {
      const { sessions } = await api<{ sessions: SessionEntry[] }>('GET', '/api/composer/sessions?limit=20');
      fill(
        this.list,
        ...sessions.map((session) =>
          h(
            'li',
            {
              class: `composer-session ${session.status}${session.sessionId === this.selected ? ' selected' : ''}`,
              'data-session': session.sessionId,
              tabindex: 0,
              onclick: () => void this.show(session.sessionId),
              onkeydown: (event) => {
                if ((event as KeyboardEvent).key === 'Enter') void this.show(session.sessionId);
              },
            },
            h('span', { class: 'composer-status' }, session.mode === 'plan' ? `${session.status} · plan` : session.status),
            ` ${session.prompt.slice(0, 80)}`,
          ),
        ),
      );
    } catch (error) {
      fill(this.list, h('li', { class: 'muted', id: 'composer-unavailable' }, inWords(error)));
    }
  }

  private async start(): Promise<void> {
    const prompt = this.prompt.value.trim();
    const files = this.globs.value.split(/[\s,]+/).filter(Boolean);
    this.problem.textContent = '';
    if (!prompt || files.length === 0) {
      this.problem.textContent = 'Say what should change, and which files it may change.';
      return;
    }
    try {
      const started = await api<{ sessionId: string }>('POST', '/api/composer/sessions', { prompt, files, ...(this.planOnly.checked ? { mode: 'plan' } : {}) });
      this.notify('Composer session started.');
      this.prompt.value = '';
      await this.show(started.sessionId);
      await this.refreshList();
    } catch (error) {
      this.problem.textContent = inWords(error);
    }
  }

  private async show(sessionId: string): Promise<void> {
    if (sessionId !== this.selected) this.events = [];
    this.selected = sessionId;
    for (const item of this.list.querySelectorAll('.composer-session')) item.classList.toggle('selected', item.getAttribute('data-session') === sessionId);
    try {
      const session = await api<ComposerSession>('GET', `/api/composer/sessions/${encodeURIComponent(sessionId)}`);
      if (this.selected !== sessionId) return;
      this.render(session);
      await this.readEvents();
    } catch (error) {
      fill(this.detail, h('p', { class: 'composer-problem' }, inWords(error)));
    }
  }

  /** Reads the selected session's events after the last one shown. */
  private async readEvents(): Promise<void> {
    if (this.reading) return this.reading.then(() => this.readEvents());
    const sessionId = this.selected;
    if (!sessionId) return;
    this.reading = (async () => {
      try {
        for (;;) {
          const after = this.events.at(-1)?.seq ?? 0;
          const { events } = await api<{ events: SessionEvent[] }>('GET', `/api/composer/sessions/${encodeURIComponent(sessionId)}/events?after=${after}`);
          if (this.selected !== sessionId) return;
          this.events.push(...events);
          if (events.length < 200) break;
        }
        this.renderSteps();
      } catch {
        // The session's own read says what is wrong; its steps wait for the next event.
      }
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private render(session: ComposerSession): void {
    const active = ACTIVE.includes(session.status);
    const appliable = !active && session.mode === 'edit' && session.edits.length > 0;
    fill(
      this.detail,
      h('h3', {}, session.prompt.slice(0, 300)),
      h(
        'p',
        { class: 'composer-summary', id: 'composer-state' },
        `${session.status} · ${session.steps} steps · ${session.tokens} tokens${session.model ? ` · ${session.model}` : ''}`,
      ),
      session.error ? h('p', { class: 'composer-problem' }, session.error) : null,
      session.summary ? h('p', { class: 'composer-words' }, session.summary) : null,
      h(
        'div',
        { class: 'buttons' },
        active ? h('button', { id: 'composer-cancel', onclick: () => void this.cancel(session.sessionId) }, 'Cancel') : null,
        appliable
          ? h(
              'button',
              { id: 'composer-apply', onclick: () => void this.apply(session.sessionId, session.status !== 'completed') },
              session.status === 'completed' ? 'Apply to workspace' : 'Apply anyway (partial)',
            )
          : null,
      ),
      session.plan
        ? h(
            'div',
            { class: 'composer-plan-result' },
            h('p', {}, session.plan.summary),
            h('ol', {}, ...session.plan.steps.map((step) => h('li', {}, step))),
            session.plan.files.length ? h('p', { class: 'muted' }, `Files: ${session.plan.files.join(', ')}`) : null,
          )
        : null,
      h('ol', { class: 'step-list composer-steps' }),
      active ? null : this.followUpForm(session.sessionId),
      h(
        'div',
        { class: 'composer-edits' },
        ...session.edits.map((edit) =>
          h(
            'div',
            { class: 'composer-edit', 'data-file': edit.file },
            h('div', { class: 'change-file' }, `${edit.action} ${edit.from ? `${edit.from} → ` : ''}${edit.file}`),
            diffView(edit.diff),
          ),
        ),
      ),
    );
    this.renderSteps();
  }

  /** A session that has ended goes on with a message (docs/composer.md, "Follow-ups"), from its edits. */
  private followUpForm(sessionId: string): HTMLElement {
    const message = h('textarea', {
      id: 'composer-follow-up',
      rows: 2,
      placeholder: 'Tell it what to do next; it goes on from its edits…',
      'aria-label': 'Follow-up message',
    });
    const form = h('form', { class: 'composer-form composer-follow-up' }, message, h('button', { type: 'submit', id: 'composer-continue' }, 'Continue'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.continueWith(sessionId, message);
    });
    message.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key === 'Enter' && ((event as KeyboardEvent).ctrlKey || (event as KeyboardEvent).metaKey)) form.requestSubmit();
    });
    return form;
  }

  private async continueWith(sessionId: string, message: HTMLTextAreaElement): Promise<void> {
    const text = message.value.trim();
    if (!text) return;
    try {
      this.render(await api<ComposerSession>('POST', `/api/composer/sessions/${encodeURIComponent(sessionId)}/message`, { message: text }));
      await this.readEvents();
      await this.refreshList();
    } catch (error) {
      this.notify(inWords(error), 'error');
    }
  }

  private renderSteps(): void {
    const host = this.detail.querySelector('.composer-steps');
    if (!host) return;
    fill(
      host,
      ...this.events
        .filter((event) => event.type === 'step' || event.type === 'status' || event.type === 'message')
        .map((event) => {
          const data = event.data;
          const kind = event.type === 'status' ? 'status' : event.type === 'message' ? 'you' : String(data['tool'] ?? data['kind'] ?? 'step');
          const text =
            event.type === 'status'
              ? String(data['status'] ?? '') + (data['error'] ? `: ${String(data['error'])}` : '')
              : String(data[event.type === 'message' ? 'message' : 'text'] ?? '');
          return h(
            'li',
            { class: `step ${event.type}${data['ok'] === false ? ' failed' : ''}` },
            h('span', { class: 'step-kind' }, kind),
            ' ',
            text.slice(0, 300),
          );
        }),
    );
  }

  private async cancel(sessionId: string): Promise<void> {
    try {
      this.render(await api<ComposerSession>('POST', `/api/composer/sessions/${encodeURIComponent(sessionId)}/cancel`));
      this.notify('The composer session was cancelled.');
    } catch (error) {
      this.notify(inWords(error), 'error');
    }
  }

  private async apply(sessionId: string, partial: boolean): Promise<void> {
    try {
      const applied = await api<{ edits: { file: string }[] }>(
        'POST',
        `/api/composer/sessions/${encodeURIComponent(sessionId)}/apply`,
        partial ? { partial: true } : {},
      );
      this.notify(`Applied to ${applied.edits.length} file${applied.edits.length === 1 ? '' : 's'}: ${applied.edits.map((edit) => edit.file).join(', ')}.`);
    } catch (error) {
      const files = error instanceof ApiError && error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
      this.notify(inWords(error) + files, 'error');
    }
  }
}

/** A session's unified diff as text, its lines coloured by kind (its edits carry no text from before, which a side-by-side view needs). */
function diffView(diff: string): HTMLElement {
  return h(
    'pre',
    { class: 'diff' },
    ...diff.split('\n').map((line) => {
      const kind =
        line.startsWith('+++') || line.startsWith('---')
          ? 'file'
          : line.startsWith('+')
            ? 'add'
            : line.startsWith('-')
              ? 'del'
              : line.startsWith('@@')
                ? 'hunk'
                : 'ctx';
      return h('span', { class: `diff-line ${kind}` }, line + '\n');
    }),
  );
}
