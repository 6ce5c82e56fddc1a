// The git panel: the branch (switch, create), the changed files in two lists — staged and not —
// each with its stage or unstage button and a click that opens its diff against HEAD, the
// commit box, push and pull with their progress. Errors are the server's words (what happened
// and what to do), never a code alone.
import type { GitCommitResult, GitFileDiff, GitFileStatus, GitPullResult, GitPushResult, GitStatus } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import { BranchSwitcher } from '../git/branch-switcher.ts';
import { DiffView } from '../git/diff-view.ts';
import { SyncProgress } from '../git/sync-progress.ts';
import { throttle } from '../throttle.ts';
import '../git/git.css';

export class GitPanel {
  readonly element = h('section', { class: 'panel git-panel', 'aria-label': 'Git' });
  private readonly message = h('textarea', { id: 'commit-message', rows: 3, placeholder: 'Commit message', 'aria-label': 'Commit message' });
  private readonly commitButton = h('button', { id: 'git-commit', onclick: () => void this.commit() }, 'Commit all');
  private readonly result = h('p', { class: 'git-result', role: 'status' });
  private readonly body = h('div', { class: 'git-body' });
  private readonly branches: BranchSwitcher;
  private readonly progress: SyncProgress;
  private readonly diff: DiffView;
  private staged: string[] = [];
  private busy = false;

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    private readonly beforeCommit: () => Promise<void>,
    events: EventStream,
    openFile: (path: string) => void = () => {},
  ) {
    this.branches = new BranchSwitcher(
      (work) => this.run(work),
      (text) => this.say(text),
    );
    this.progress = new SyncProgress(events);
    this.diff = new DiffView({
      open: (path) => {
        this.diff.close();
        openFile(path);
      },
      stage: (path) => this.run(() => this.stage([path])),
    });
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
      this.branches.element,
      this.body,
      this.message,
      h(
        'div',
        { class: 'buttons' },
        this.commitButton,
        h('button', { id: 'git-push', onclick: () => void this.sync('push') }, 'Push'),
        h('button', { id: 'git-pull', onclick: () => void this.sync('pull') }, 'Pull'),
        h('button', { id: 'git-refresh', onclick: () => void this.refresh() }, 'Refresh'),
      ),
      this.progress.element,
      this.result,
    );
  }

  async refresh(): Promise<void> {
    try {
      const status = await api<GitStatus>('GET', '/api/git/status');
      // A repository with no commit yet has no branch to list or switch to.
      if (status.head) await this.branches.refresh();
      this.show(status);
    } catch (error) {
      fill(this.body, h('p', { class: 'git-error' }, inWords(error)));
    }
  }

  private show(status: GitStatus): void {
    const staged = status.files.filter((file) => file.staged);
    const changed = status.files.filter((file) => !file.staged || (file.workingTree !== ' ' && file.workingTree !== '?'));
    this.staged = staged.map((file) => file.path);
    this.commitButton.textContent = staged.length ? `Commit staged (${staged.length})` : 'Commit all';
    const section = (title: string, id: string, files: GitFileStatus[], kind: 'stage' | 'unstage') =>
      files.length === 0
        ? null
        : h(
            'div',
            { class: 'git-section', id },
            h(
              'div',
              { class: 'git-section-title' },
              h('span', {}, `${title} (${files.length})`),
              h(
                'button',
                {
                  class: 'git-all',
                  title: kind === 'stage' ? 'Stage every change' : 'Unstage everything',
                  onclick: () => void this.run(() => (kind === 'stage' ? this.stage() : this.unstage())),
                },
                kind === 'stage' ? 'Stage all' : 'Unstage all',
              ),
            ),
            h('ul', { class: 'git-files' }, ...files.map((file) => this.fileRow(file, kind))),
          );
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
        : h('div', {}, section('Staged', 'git-staged', staged, 'unstage'), section('Changes', 'git-changes', changed, 'stage')),
    );
  }

  private fileRow(file: GitFileStatus, kind: 'stage' | 'unstage'): HTMLLIElement {
    const state = kind === 'unstage' ? file.index : file.workingTree === ' ' ? file.index : file.workingTree;
    const label = { M: 'modified', T: 'type changed', A: 'added', D: 'deleted', R: 'renamed', C: 'copied', U: 'conflicted', '?': 'untracked', ' ': '' }[state];
    return h(
      'li',
      { class: file.conflicted ? 'conflicted' : '', 'data-path': file.path },
      h('code', { class: 'git-state', title: label }, `${file.index}${file.workingTree}`),
      h('button', { class: 'git-file', title: `Show the changes to ${file.path}`, onclick: () => void this.openDiff(file.path) }, file.path),
      h(
        'button',
        {
          class: `git-${kind}`,
          title: `${kind === 'stage' ? 'Stage' : 'Unstage'} ${file.path}`,
          'aria-label': `${kind === 'stage' ? 'Stage' : 'Unstage'} ${file.path}`,
          onclick: () => void this.run(() => (kind === 'stage' ? this.stage([file.path]) : this.unstage([file.path]))),
        },
        kind === 'stage' ? '+' : '−',
      ),
    );
  }

  private async openDiff(path: string): Promise<void> {
    try {
      await this.diff.show(await api<GitFileDiff>('GET', `/api/git/diff?path=${encodeURIComponent(path)}`));
    } catch (error) {
      this.say(`Could not show the changes to ${path}: ${inWords(error)}`, true);
    }
  }

  private async stage(files?: string[]): Promise<void> {
    await this.beforeCommit();
    this.show(await api<GitStatus>('POST', '/api/git/stage', files ? { files } : {}));
  }

  private async unstage(files?: string[]): Promise<void> {
    this.show(await api<GitStatus>('POST', '/api/git/unstage', files ? { files } : {}));
  }

  private async commit(): Promise<void> {
    const message = this.message.value.trim();
    if (!message) return this.say('Write a commit message first.', true);
    await this.run(async () => {
      await this.beforeCommit();
      // What is staged, when anything is (those files as they are now); else every change.
      const files = this.staged.length ? this.staged : undefined;
      const result = await api<GitCommitResult>('POST', '/api/git/commit', files ? { message, files } : { message });
      this.message.value = '';
      this.say(
        `Committed ${result.commit.slice(0, 7)} on ${result.branch ?? 'a detached HEAD'}: ${result.summary} (${result.files.length} file${result.files.length === 1 ? '' : 's'}).`,
      );
    });
  }

  private async sync(kind: 'push' | 'pull'): Promise<void> {
    await this.run(async () => {
      this.progress.begin(kind);
      try {
        const result = await api<GitPushResult | GitPullResult>('POST', `/api/git/${kind}`, {});
        this.say(result.summary);
      } finally {
        this.progress.end();
      }
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
