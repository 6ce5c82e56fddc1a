// The agents panel: start a task on files (globs) with a model, follow its steps live from
// `agent:step` events, review each change as a diff once it ends, cancel it, revert it.
import type { AgentRunRequest, AgentTask } from '../../contracts/local-resources.ts';
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

interface StepEvent {
  taskId: string;
  index: number;
  kind: string;
  tool?: string;
  ok?: boolean;
  text: string;
  diff?: string;
}

export class AgentsPanel {
  readonly element = h('section', { class: 'panel agents-panel', 'aria-label': 'Agents' });
  private readonly task = h('textarea', { id: 'agent-task', rows: 3, placeholder: 'What should the agent do?', 'aria-label': 'Task' });
  private readonly globs = h('input', { id: 'agent-files', placeholder: 'Files it may change, e.g. src/**/*.ts', 'aria-label': 'Files (globs)' });
  private readonly model = h('input', { id: 'agent-model', placeholder: 'Model (default when empty)', 'aria-label': 'Model' });
  private readonly problem = h('p', { class: 'agent-problem', role: 'alert' });
  private readonly list = h('ul', { class: 'agent-tasks' });
  private readonly detail = h('div', { class: 'agent-detail' });
  private selected: string | undefined;
  private steps: StepEvent[] = [];

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    events: EventStream,
  ) {
    const form = h(
      'form',
      { class: 'agent-form' },
      this.task,
      this.globs,
      this.model,
      h('button', { type: 'submit', id: 'agent-run' }, 'Run task'),
      this.problem,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
    fill(this.element, h('div', { class: 'panel-title' }, 'Agents'), form, this.list, this.detail);
    events.on('agent:start', () => void this.refreshList());
    events.on('agent:step', (event) => {
      const step = event.data as unknown as StepEvent;
      if (step.taskId !== this.selected) return;
      this.steps.push(step);
      this.renderSteps();
    });
    events.on('agent:complete', (event) => {
      void this.refreshList();
      if (this.selected !== undefined && event.data['taskId'] === this.selected) void this.show(this.selected);
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
            {
              class: `agent-task ${task.status}${task.taskId === this.selected ? ' selected' : ''}`,
              'data-task': task.taskId,
              onclick: () => void this.show(task.taskId),
            },
            h('span', { class: 'agent-status' }, task.status),
            ` ${task.task.slice(0, 80)}`,
          ),
        ),
      );
    } catch (error) {
      fill(this.list, h('li', { class: 'muted' }, inWords(error)));
    }
  }

  private async run(): Promise<void> {
    const task = this.task.value.trim();
    const files = this.globs.value.split(/[\s,]+/).filter(Boolean);
    this.problem.textContent = '';
    if (!task || files.length === 0) {
      this.problem.textContent = 'Say what to do, and which files it may change.';
      return;
    }
    const request: AgentRunRequest = { task, files, ...(this.model.value.trim() ? { model: this.model.value.trim() } : {}) };
    try {
      const started = await api<{ taskId: string; estimatedTime: number }>('POST', '/api/agent/run', request);
      this.notify(`Agent task started (about ${started.estimatedTime} s).`);
      await this.show(started.taskId);
      await this.refreshList();
    } catch (error) {
      this.problem.textContent = inWords(error);
    }
  }

  private async show(taskId: string): Promise<void> {
    const switching = taskId !== this.selected;
    this.selected = taskId;
    try {
      const task = await api<AgentTask>('GET', `/api/agent/status/${encodeURIComponent(taskId)}`);
      if (switching || task.status !== 'running') {
        const { steps } = await api<{ steps: StepEvent[] }>('GET', `/api/agent/steps/${encodeURIComponent(taskId)}?limit=500`);
        this.steps = steps.map((step) => ({ ...step, taskId }));
      }
      this.renderTask(task);
    } catch (error) {
      fill(this.detail, h('p', { class: 'agent-problem' }, inWords(error)));
    }
  }

  private renderTask(task: AgentTask): void {
    const running = task.status === 'running';
    fill(
      this.detail,
      h('h3', {}, task.task),
      h(
        'p',
        { class: 'agent-summary', id: 'agent-state' },
        `${task.status}${task.reason ? ` (${task.reason})` : ''} · ${task.steps} steps · ${task.tokens} tokens · ${task.model}`,
        task.revertedAt ? ' · reverted' : '',
      ),
      task.error ? h('p', { class: 'agent-problem' }, task.error) : null,
      task.summary ? h('p', { class: 'agent-words' }, task.summary) : null,
      h(
        'div',
        { class: 'buttons' },
        running ? h('button', { onclick: () => void this.act('cancel', task.taskId) }, 'Cancel') : null,
        !running && task.changes.length > 0 && !task.revertedAt
          ? h('button', { id: 'agent-revert', onclick: () => void this.act('revert', task.taskId) }, 'Revert all')
          : null,
      ),
      h('div', { class: 'agent-steps' }),
      h(
        'div',
        { class: 'agent-changes' },
        ...task.changes.map((change) =>
          h('div', { class: 'agent-change' }, h('div', { class: 'change-file' }, `${change.action} ${change.file}`), diffView(change.diff)),
        ),
      ),
    );
    this.renderSteps();
  }

  private renderSteps(): void {
    const host = this.detail.querySelector('.agent-steps');
    if (!host) return;
    fill(
      host,
      h(
        'ol',
        { class: 'step-list' },
        ...this.steps.map((step) =>
          h(
            'li',
            { class: `step ${step.kind}${step.ok === false ? ' failed' : ''}` },
            h('span', { class: 'step-kind' }, step.tool ?? step.kind),
            ' ',
            step.text.slice(0, 300),
            step.diff ? diffView(step.diff) : null,
          ),
        ),
      ),
    );
  }

  private async act(kind: 'cancel' | 'revert', taskId: string): Promise<void> {
    try {
      const task = await api<AgentTask>('POST', `/api/agent/${kind}/${encodeURIComponent(taskId)}`);
      this.renderTask(task);
      this.notify(kind === 'revert' ? 'The task’s changes were reverted.' : 'The task was cancelled.');
    } catch (error) {
      const files = error instanceof ApiError && error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
      this.notify(inWords(error) + files, 'error');
    }
  }
}

/** A unified diff, one line each, coloured by what the line does. */
export function diffView(diff: string): HTMLElement {
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
