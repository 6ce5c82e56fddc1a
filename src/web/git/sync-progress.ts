// How far a push or a pull got, from the git:progress events the server sends while it runs:
// a progress bar for the phase that reports a percentage, and git's line in words.
import type { GitProgress } from '../../contracts/local-resources.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';

export class SyncProgress {
  readonly element = h('div', { class: 'git-progress', role: 'status', 'aria-live': 'polite', hidden: true });
  private readonly bar = h('progress', { max: 100, 'aria-label': 'Progress' });
  private readonly text = h('span', { class: 'git-progress-text' });
  private active: GitProgress['operation'] | undefined;

  constructor(events: EventStream) {
    fill(this.element, this.bar, this.text);
    events.on('git:progress', (event) => {
      const progress = event.data as unknown as GitProgress;
      if (progress.operation !== this.active) return;
      if (progress.percent === null) this.bar.removeAttribute('value');
      else this.bar.value = progress.percent;
      this.text.textContent = progress.text;
    });
  }

  /** Shows the progress of `operation` until `end`. */
  begin(operation: GitProgress['operation']): void {
    this.active = operation;
    this.bar.removeAttribute('value');
    this.text.textContent = operation === 'push' ? 'Pushing…' : 'Pulling…';
    this.element.hidden = false;
  }

  end(): void {
    this.active = undefined;
    this.element.hidden = true;
  }
}
