// Light or dark: the window follows the system (prefers-color-scheme) until the user picks one,
// and the pick is kept in the browser (localStorage) for the next time. The whole page, the
// editor included, is painted from CSS variables chosen by `data-theme` on <html>, so switching
// repaints everything at once and nothing keeps the other theme's colours.

export type ThemePreference = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'loom.theme';
const ORDER: ThemePreference[] = ['system', 'light', 'dark'];

/**
 * The window's theme: applies it at once and keeps following the system while the preference is
 * `system`.
 *
 * @example
 *   const theme = new ThemeSwitch();
 *   theme.onChange = (preference, applied) => (button.title = `Theme: ${preference} (${applied})`);
 *   button.onclick = () => theme.cycle();
 */
export class ThemeSwitch {
  onChange: (preference: ThemePreference, applied: Theme) => void = () => {};
  private preference: ThemePreference;
  private readonly system = matchMedia('(prefers-color-scheme: dark)');

  constructor() {
    this.preference = readPreference();
    this.system.addEventListener('change', () => this.apply());
    this.apply();
  }

  get current(): { preference: ThemePreference; applied: Theme } {
    return { preference: this.preference, applied: this.applied() };
  }

  /** Sets and keeps the preference. */
  set(preference: ThemePreference): void {
    this.preference = preference;
    try {
      if (preference === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, preference);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
    this.apply();
  }

  /** System → light → dark → system. */
  cycle(): void {
    this.set(ORDER[(ORDER.indexOf(this.preference) + 1) % ORDER.length]!);
  }

  private applied(): Theme {
    if (this.preference !== 'system') return this.preference;
    return this.system.matches ? 'dark' : 'light';
  }

  private apply(): void {
    const applied = this.applied();
    document.documentElement.dataset['theme'] = applied;
    document.documentElement.style.colorScheme = applied;
    this.onChange(this.preference, applied);
  }
}

function readPreference(): ThemePreference {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}
