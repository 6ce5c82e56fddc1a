// The branch switcher of the git panel: the local branches (and remote ones not yet local) in
// a list, a switch on choosing one, and a field to create a branch from HEAD and switch to it.
// A refusal (local changes a switch would overwrite) comes back in git's words.
import type { GitBranches, GitBranchResult } from '../../contracts/local-resources.ts';
import { api } from '../api.ts';
import { fill, h } from '../dom.ts';

export class BranchSwitcher {
  readonly element = h('div', { class: 'git-branches' });
  private readonly select = h('select', { id: 'git-branch-select', 'aria-label': 'Switch branch' });
  private readonly name = h('input', { id: 'git-new-branch', placeholder: 'New branch', 'aria-label': 'New branch name', spellcheck: 'false' });

  /**
   * @param run runs a git action with the panel's busy state and its words for failures.
   * @param said shows the summary of what was done.
   */
  constructor(
    private readonly run: (work: () => Promise<void>) => Promise<void>,
    private readonly said: (text: string) => void,
  ) {
    this.select.addEventListener('change', () => {
      const branch = this.select.value;
      if (branch) void this.run(() => this.switchTo(branch));
    });
    this.name.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') void this.run(() => this.create());
    });
    fill(
      this.element,
      this.select,
      h('div', { class: 'git-new-branch' }, this.name, h('button', { id: 'git-create-branch', onclick: () => void this.run(() => this.create()) }, 'Create')),
    );
  }

  async refresh(): Promise<void> {
    const branches = await api<GitBranches>('GET', '/api/git/branches');
    const local = new Set(branches.branches.map((branch) => branch.name));
    // A remote branch with no local one yet: switching to it makes the local one, tracking it.
    const remoteOnly = branches.remotes.map((remote) => remote.name.slice(remote.remote.length + 1)).filter((name) => !local.has(name));
    const option = (name: string, label = name) => h('option', { value: name, selected: name === branches.current }, label);
    fill(
      this.select,
      branches.current === null ? h('option', { value: '', selected: true }, 'detached HEAD') : null,
      ...branches.branches.map((branch) => option(branch.name)),
      ...(branches.current !== null && !local.has(branches.current) ? [option(branches.current, `${branches.current} (no commit yet)`)] : []),
      remoteOnly.length ? h('optgroup', { label: 'Remote' }, ...[...new Set(remoteOnly)].map((name) => option(name))) : null,
    );
  }

  private async switchTo(branch: string): Promise<void> {
    const result = await api<GitBranchResult>('POST', '/api/git/switch', { branch });
    this.said(result.summary);
  }

  private async create(): Promise<void> {
    const name = this.name.value.trim();
    if (!name) throw new Error('Write the new branch’s name first.');
    const result = await api<GitBranchResult>('POST', '/api/git/branch', { name });
    this.name.value = '';
    this.said(result.summary);
  }
}
