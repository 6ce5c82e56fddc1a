// An agent task as a conversation: the user's messages, the agent's work between them folded
// into one line per stretch of tool calls (opened to see each call and its result), the agent's
// words, how each part ended in words, and a command waiting for approval with its buttons.
// Built from the task's status and its step log; text only, never markup.
import type { AgentStep, AgentTask } from '../../contracts/local-resources.ts';
import { h } from '../dom.ts';

/** What the thread's approval buttons do: answer the request (`once`, `always`, `deny`). */
export type ApprovalAnswer = (approvalId: string, decision: 'once' | 'always' | 'deny') => void;

/** Why a part of the conversation ended, in words (the status's `reason`). */
const ENDED: Record<string, string> = {
  done: '',
  max_steps: 'It stopped: it used all its turns.',
  max_tokens: 'It stopped: it used all its tokens.',
  timeout: 'It stopped: its time ran out.',
  loop: 'It stopped: it kept repeating itself.',
  unusable_answers: 'It stopped: the model’s answers could not be used.',
  model_error: 'It stopped: the model failed.',
  cancelled: 'You cancelled it.',
  interrupted: 'It stopped: Loom stopped while it worked.',
  error: 'It stopped on an error.',
};

/**
 * The conversation's items, oldest first. `open` holds the first step index of each folded
 * stretch the user opened, so that a live re-render keeps them open.
 *
 * @example
 *   fill(list, ...threadItems(task, steps, open, (id, decision) => void answer(id, decision)));
 */
export function threadItems(task: AgentTask, steps: readonly AgentStep[], open: Set<number>, answer: ApprovalAnswer): HTMLElement[] {
  const items: HTMLElement[] = [message('user', task.task)];
  let work: AgentStep[] = [];
  let exchange = 0;
  const flush = () => {
    if (work.length) items.push(workItem(work, open));
    work = [];
  };
  for (const step of steps) {
    if (step.kind === 'user') {
      flush();
      const ended = endOf(task.conversation[exchange]?.reason);
      if (ended) items.push(h('li', { class: 'agent-ended' }, ended));
      exchange += 1;
      items.push(message('user', step.text));
    } else if (step.kind === 'model') {
      if (step.text.trim()) {
        flush();
        items.push(message('agent', step.text));
      }
    } else work.push(step);
  }
  flush();
  if (task.status === 'running') {
    if (task.approval) items.push(approvalItem(task.approval, answer));
    else items.push(h('li', {}, h('div', { class: 'agent-working', role: 'status' }, `Working… ${task.steps} turn${task.steps === 1 ? '' : 's'} so far.`)));
  } else {
    const ended = endOf(task.reason);
    if (task.error) items.push(h('li', {}, h('div', { class: 'agent-error', role: 'alert' }, `${ended} ${task.error}`.trim())));
    else if (ended) items.push(h('li', { class: 'agent-ended' }, ended));
  }
  return items;
}

function endOf(reason: string | undefined): string {
  return reason ? (ENDED[reason] ?? `It stopped (${reason}).`) : '';
}

function message(who: 'user' | 'agent', text: string): HTMLElement {
  return h(
    'li',
    { class: `agent-message ${who}` },
    h('div', { class: 'agent-who' }, who === 'user' ? 'You' : 'Agent'),
    h('div', { class: 'agent-text' }, text),
  );
}

/** A stretch of tool calls and notes, folded to one line: which tools, and how many failed. */
function workItem(steps: AgentStep[], open: Set<number>): HTMLElement {
  const tools = steps.filter((step) => step.kind === 'tool');
  const failed = tools.filter((step) => step.ok === false).length;
  const names = [...new Set(tools.map((step) => step.tool ?? 'tool'))];
  const first = steps[0]!.index;
  const summary = tools.length
    ? `${tools.length} tool call${tools.length === 1 ? '' : 's'}: ${names.join(', ')}${failed ? ` (${failed} failed)` : ''}`
    : `${steps.length} note${steps.length === 1 ? '' : 's'} to the model`;
  const details = h(
    'details',
    { class: 'agent-work', open: open.has(first) },
    h('summary', {}, summary),
    h(
      'ol',
      { class: 'agent-steps' },
      ...steps.map((step) =>
        h(
          'li',
          { class: `agent-step ${step.kind}${step.ok === false ? ' failed' : ''}` },
          h('span', { class: 'agent-step-kind' }, step.kind === 'tool' ? `${step.tool ?? 'tool'}${step.ok === false ? ' (failed)' : ''}` : 'note'),
          step.arguments ? h('code', { class: 'agent-step-args' }, step.arguments.slice(0, 300)) : null,
          h('div', { class: 'agent-step-text' }, step.text.slice(0, 1200)),
        ),
      ),
    ),
  );
  details.addEventListener('toggle', () => (details.open ? open.add(first) : open.delete(first)));
  return h('li', { class: 'agent-work-item' }, details);
}

function approvalItem(approval: NonNullable<AgentTask['approval']>, answer: ApprovalAnswer): HTMLElement {
  const button = (id: string, label: string, decision: 'once' | 'always' | 'deny') =>
    h('button', { type: 'button', id, class: decision === 'deny' ? '' : 'primary', onclick: () => answer(approval.approvalId, decision) }, label);
  // The group inside the list item: a list holds list items only.
  return h(
    'li',
    {},
    h(
      'div',
      { class: 'agent-approval', role: 'group', 'aria-label': 'The agent asks to run a command' },
      h('div', { class: 'agent-who' }, 'The agent asks to run'),
      h('code', { class: 'agent-command' }, approval.command),
      h('div', { class: 'muted' }, `in ${approval.cwd}; unanswered by ${new Date(approval.expiresAt).toLocaleTimeString()}, it is denied.`),
      h(
        'div',
        { class: 'buttons' },
        button('agent-approve-once', 'Approve once', 'once'),
        button('agent-approve-always', 'Always for this workspace', 'always'),
        button('agent-deny', 'Deny', 'deny'),
      ),
    ),
  );
}
