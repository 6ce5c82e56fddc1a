// The agents panel: a task is a conversation. The first message starts a task (its scope the
// workspace, or the files the composer's chips name), later ones continue it
// (POST /api/agent/message/:taskId) with its context. The thread shows the user's messages, the
// agent's work folded per stretch of tool calls, its words, how it ended, and a command waiting
// for approval with its buttons; under it, every file the task changed as a diff to accept or
// reject per change and per file. A list switches between conversations; everything follows the
// event stream (agent:start, agent:message, agent:step, agent:approval, agent:complete).
import type { EditorView } from '@codemirror/view';
import type { AgentRunRequest, AgentStep, AgentTask } from '../../contracts/local-resources.ts';
import { Composer, type ComposedMessage, type EditorContext } from '../agents/composer.ts';
import { ChangeReview } from '../agents/review.ts';
import { threadItems } from '../agents/thread.ts';
import '../agents/agents.css';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';

interface TaskListEntry {
  taskId: string;
  status: string;
  task: string;
  steps: number;
  createdAt: string;
}

/** What the panel needs of the editor: the active file and its selection (the composer's context), and opening a file. */
export interface AgentEditor {
  readonly activeDocument: { path: string } | undefined;
  readonly editorView: EditorView;
  open(path: string): unknown;
}

/** The scope of a task started without files: the whole workspace (the agent reads everything anyway). */
const WORKSPACE = ['**'];
/** Steps read per request of the step log (its most). */
const STEP_PAGE = 500;

/**
 * The panel.
 *
 * @example
 *   const agents = new AgentsPanel(notify, events, workbench);
 *   side.append(agents.element);
 *   await agents.refreshList();
 */
export class AgentsPanel {
  readonly element = h('section', { class: 'panel agents-panel', 'aria-label': 'Agents' });
  private readonly list = h('ul', { class: 'agent-tasks', 'aria-label': 'Conversations' });
  private readonly state = h('p', { class: 'agent-summary', id: 'agent-state', role: 'status' });
  private readonly actions = h('div', { class: 'buttons agent-actions' });
  private readonly thread = h('ol', { class: 'agent-thread' });
  /** The thread's live region: a list inside it, so that its items stay list items for assistive technology. */
  private readonly log = h('div', { class: 'agent-log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' }, this.thread);
  private readonly composer: Composer;
  private readonly review: ChangeReview;
  private selected: string | undefined;
  private task: AgentTask | undefined;
  private steps: AgentStep[] = [];
  /** Folded stretches of work the user opened (by their first step), kept open across re-renders. */
  private readonly open = new Set<number>();
  private refreshing: Promise<void> | undefined;
  private again = false;
  /** What the review last showed: it reads both sides of every file again only when this changes. */
  private reviewed = '';

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    events: EventStream,
    private readonly editor: AgentEditor,
  ) {
    this.composer = new Composer(
      () => this.editorContext(),
      (message) => this.send(message),
    );
    this.review = new ChangeReview({
      notify,
      open: (path) => void this.editor.open(path),
      changed: (task) => {
        this.task = task;
        this.render();
      },
    });
    fill(
      this.element,
      h(
        'div',
        { class: 'panel-title agent-title' },
        h('span', {}, 'Agents'),
        h('button', { type: 'button', id: 'agent-new', title: 'Start a new conversation', onclick: () => this.startNew() }, 'New'),
      ),
      this.list,
      h('div', { class: 'agent-conversation' }, this.state, this.actions, this.log, this.review.element),
      this.composer.element,
    );
    this.startNew();
    events.on('agent:start', () => void this.refreshList());
    events.on('agent:message', (event) => {
      void this.refreshList();
      this.follow(event.data['taskId']);
    });
    for (const type of ['agent:step', 'agent:approval']) events.on(type, (event) => this.follow(event.data['taskId']));
    events.on('agent:complete', (event) => {
      void this.refreshList();
      this.follow(event.data['taskId']);
    });
    events.onResync(() => {
      void this.refreshList();
      if (this.selected) void this.refresh();
    });
  }

  async refreshList(): Promise<void> {
    try {
      const { tasks } = await api<{ tasks: TaskListEntry[] }>('GET', '/api/agent/tasks?limit=20');
      fill(
        this.list,
        ...tasks.map((task) =>
          h(
            'li',
            { class: `agent-task ${task.status}${task.taskId === this.selected ? ' selected' : ''}`, 'data-task': task.taskId },
            h(
              'button',
              { type: 'button', 'aria-current': task.taskId === this.selected ? 'true' : undefined, onclick: () => void this.show(task.taskId) },
              h('span', { class: 'agent-status' }, task.status),
              ` ${task.task.slice(0, 80)}`,
            ),
          ),
        ),
      );
    } catch (error) {
      fill(this.list, h('li', { class: 'muted' }, inWords(error)));
    }
  }

  /** Shows a conversation from its start. */
  async show(taskId: string): Promise<void> {
    if (taskId !== this.selected) {
      this.selected = taskId;
      this.task = undefined;
      this.steps = [];
      this.open.clear();
      this.reviewed = '';
      for (const item of this.list.querySelectorAll('.agent-task')) {
        const selected = item.getAttribute('data-task') === taskId;
        item.classList.toggle('selected', selected);
        item.querySelector('button')?.toggleAttribute('aria-current', selected);
      }
    }
    await this.refresh();
  }

  /** An empty conversation: the next message starts a task. */
  private startNew(): void {
    this.selected = undefined;
    this.task = undefined;
    this.steps = [];
    this.reviewed = '';
    for (const item of this.list.querySelectorAll('.agent-task.selected')) item.classList.remove('selected');
    this.state.textContent = 'A new conversation: say what the agent should do.';
    fill(this.actions);
    fill(this.thread);
    this.review.clear();
    this.composer.setMode('new');
    this.composer.focus();
  }

  /** An event of a task: the shown one is read again (at most one read at a time, one more queued). */
  private follow(taskId: unknown): void {
    if (typeof taskId === 'string' && taskId === this.selected) void this.refresh();
  }

  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = this.read()
      .catch((error) => {
        this.state.textContent = inWords(error);
      })
      .finally(() => {
        this.refreshing = undefined;
        if (this.again) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.refreshing;
  }

  /** Reads the shown task's status and the steps of its log not read yet. */
  private async read(): Promise<void> {
    const taskId = this.selected;
    if (!taskId) return;
    const task = await api<AgentTask>('GET', `/api/agent/status/${encodeURIComponent(taskId)}`);
    const steps = [...this.steps];
    for (;;) {
      const after = steps.at(-1)?.index ?? 0;
      const page = await api<{ steps: AgentStep[] }>('GET', `/api/agent/steps/${encodeURIComponent(taskId)}?after=${after}&limit=${STEP_PAGE}`);
      steps.push(...page.steps);
      if (page.steps.length < STEP_PAGE) break;
    }
    if (taskId !== this.selected) return;
    this.task = task;
    this.steps = steps;
    this.render();
  }

  private render(): void {
    const task = this.task;
    if (!task) return;
    const running = task.status === 'running';
    this.state.textContent = [
      running ? (task.approval ? 'waiting for your approval' : 'running') : task.status,
      `${task.steps} turn${task.steps === 1 ? '' : 's'}`,
      `${task.tokens} tokens`,
      task.model,
      task.revertedAt ? 'reverted' : '',
    ]
      .filter(Boolean)
      .join(' · ');
    fill(this.actions, running ? h('button', { type: 'button', id: 'agent-cancel', onclick: () => void this.cancel(task.taskId) }, 'Cancel') : null);
    const atEnd = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    fill(this.thread, ...threadItems(task, this.steps, this.open, (approvalId, decision) => void this.approve(task.taskId, approvalId, decision)));
    if (atEnd) this.log.scrollTop = this.log.scrollHeight;
    this.composer.setMode(running ? 'busy' : 'follow-up');
    const reviewed = JSON.stringify([task.taskId, task.status, task.revertedAt, task.changes]);
    if (reviewed !== this.reviewed) {
      this.reviewed = reviewed;
      void this.review.show(task);
    }
  }

  /** The composer's message: a new task, or the next message of the shown one. */
  private async send(message: ComposedMessage): Promise<boolean> {
    try {
      if (this.selected === undefined) {
        const request: AgentRunRequest = {
          task: message.text,
          files: message.files.length ? message.files : WORKSPACE,
          ...(message.model ? { model: message.model } : {}),
        };
        const started = await api<{ taskId: string }>('POST', '/api/agent/run', request);
        await this.show(started.taskId);
        await this.refreshList();
      } else {
        await api('POST', `/api/agent/message/${encodeURIComponent(this.selected)}`, { message: message.text });
        await this.refresh();
      }
      return true;
    } catch (error) {
      this.notify(inWords(error), 'error');
      return false;
    }
  }

  private async approve(taskId: string, approvalId: string, decision: 'once' | 'always' | 'deny'): Promise<void> {
    try {
      this.task = await api<AgentTask>('POST', `/api/agent/approve/${encodeURIComponent(taskId)}`, { approvalId, decision });
      this.render();
    } catch (error) {
      this.notify(inWords(error), 'error');
      await this.refresh();
    }
  }

  private async cancel(taskId: string): Promise<void> {
    try {
      this.task = await api<AgentTask>('POST', `/api/agent/cancel/${encodeURIComponent(taskId)}`);
      this.render();
    } catch (error) {
      const files = error instanceof ApiError && error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
      this.notify(inWords(error) + files, 'error');
    }
  }

  /** The active file and its selection (whole lines), for the composer's chips. */
  private editorContext(): EditorContext | undefined {
    const document = this.editor.activeDocument;
    if (!document) return undefined;
    const { state } = this.editor.editorView;
    const range = state.selection.main;
    if (range.empty) return { path: document.path };
    const from = state.doc.lineAt(range.from);
    const to = state.doc.lineAt(range.to);
    return { path: document.path, selection: { fromLine: from.number, toLine: to.number, text: state.sliceDoc(from.from, to.to) } };
  }
}
