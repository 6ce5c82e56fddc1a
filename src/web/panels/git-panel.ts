// The git panel: the branch and its upstream, the changed files, commit, push and pull. Errors
// are the server's words (what happened and what to do), never a code alone.
import type { GitCommitResult, GitPullResult, GitPushResult, GitStatus } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { throttle } from '../throttle.ts';

export class GitPanel {
  readonly element = h('section', { class: 'panel git-panel', 'aria-label': 'Git' });
  private readonly message = h('textarea', { id: 'commit-message', rows: 3, placeholder: 'Commit message', 'aria-label': 'Commit message' });
  private readonly result = h('p', { class: 'git-result', role: 'status' });
  private readonly body = h('div', { class: 'git-body' });
  private busy = false;

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    private readonly beforeCommit: () => Promise<void>,
    events: EventStream,
  ) {
    for (const type of ['file:save', 'git:commit', 'agent:complete']) events.on(type, () => void this.refresh());
    // Files another program changed (a build, a checkout): the status follows, one read per
    // 2 seconds at most, while the panel shows.
    const refreshSoon = throttle(() => void this.refresh(), 2000);
    events.on('disk:change', () => {
      if (this.element.isConnected) refreshSoon();
    });
    // A terminal's git changes the repository (.git, which is not watched): look again on coming back.
    window.addEventListener('focus', () => {
      if (this.element.isConnected) void this.refresh();
    });
    fill(
      this.element,
      h('div', { class: 'panel-title' }, 'Git'),
      this.body,
      this.message,
      h(
        'div',
        { class: 'buttons' },
        h('button', { id: 'git-commit', onclick: () => void this.commit() }, 'Commit all'),
        h('button', { id: 'git-push', onclick: () => void this.sync('push') }, 'Push'),
        h('button', { id: 'git-pull', onclick: () => void this.sync('pull') }, 'Pull'),
        h('button', { id: 'git-refresh', onclick: () => void this.refresh() }, 'Refresh'),
      ),
      this.result,
    );
  }

  async refresh(): Promise<void> {
    try {
      const status = await api<GitStatus>('GET', '/api/git/status');
      fill(
        this.body,
        h(
          'p',
          { class: 'git-branch' },
          h('strong', { id: 'git-branch' }, status.branch ?? `detached at ${status.head?.slice(0, 7) ?? '?'}`),
          status.upstream ? ` → ${status.upstream} (↑${status.ahead} ↓${status.behind})` : ' (no upstream)',
          status.merging ? ' · merging' : '',
        ),
        status.clean
          ? h('p', { class: 'muted', id: 'git-clean' }, 'Nothing to commit.')
          : h(
              'ul',
              { class: 'git-files' },
              ...status.files.map((file) =>
                h('li', { class: file.conflicted ? 'conflicted' : '' }, h('code', { class: 'git-state' }, `${file.index}${file.workingTree}`), ` ${file.path}`),
              ),
            ),
      );
    } catch (error) {
      fill(this.body, h('p', { class: 'git-error' }, inWords(error)));
    }
  }

  private async commit(): Promise<void> {
    const message = this.message.value.trim();
    if (!message) return this.say('Write a commit message first.', true);
    await this.run(async () => {
      await this.beforeCommit();
      const result = await api<GitCommitResult>('POST', '/api/git/commit', { message });
      this.message.value = '';
      this.say(
        `Committed ${result.commit.slice(0, 7)} on ${result.branch ?? 'a detached HEAD'}: ${result.summary} (${result.files.length} file${result.files.length === 1 ? '' : 's'}).`,
      );
    });
  }

  private async sync(kind: 'push' | 'pull'): Promise<void> {
    await this.run(async () => {
      const result = await api<GitPushResult | GitPullResult>('POST', `/api/git/${kind}`, {});
      this.say(result.summary);
    });
  }

  private async run(work: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.element.classList.add('busy');
    try {
      await work();
    } catch (error) {
      const files = error instanceof ApiError && error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
      this.say(inWords(error) + files, true);
    } finally {
      this.busy = false;
      this.element.classList.remove('busy');
      await this.refresh();
    }
  }

  private say(text: string, failed = false): void {
    this.result.textContent = text;
    this.result.className = `git-result${failed ? ' failed' : ''}`;
    if (failed) this.notify(text, 'error');
  }
}
