// The terminal's colours come from CSS variables (terminal.css defines them for light and dark,
// from the window's own --bg, --fg and --accent), so a theme switch of the window is one of the
// terminal's too: read them again whenever the colour scheme or the root's attributes change.
import type { ITheme } from '@xterm/xterm';

/** Each colour of xterm's theme, and the CSS variable that gives it. */
const VARIABLES: Record<keyof ITheme & string, string> = {
  foreground: '--terminal-fg',
  background: '--terminal-bg',
  cursor: '--terminal-cursor',
  cursorAccent: '--terminal-bg',
  selectionBackground: '--terminal-selection',
  selectionInactiveBackground: '--terminal-selection',
  black: '--terminal-black',
  red: '--terminal-red',
  green: '--terminal-green',
  yellow: '--terminal-yellow',
  blue: '--terminal-blue',
  magenta: '--terminal-magenta',
  cyan: '--terminal-cyan',
  white: '--terminal-white',
  brightBlack: '--terminal-bright-black',
  brightRed: '--terminal-bright-red',
  brightGreen: '--terminal-bright-green',
  brightYellow: '--terminal-bright-yellow',
  brightBlue: '--terminal-bright-blue',
  brightMagenta: '--terminal-bright-magenta',
  brightCyan: '--terminal-bright-cyan',
  brightWhite: '--terminal-bright-white',
} as Record<keyof ITheme & string, string>;

/** The theme the CSS variables give `element` now (a colour left undefined keeps xterm's own). */
export function themeFrom(element: Element): ITheme {
  const style = getComputedStyle(element);
  const theme: Record<string, string> = {};
  for (const [key, variable] of Object.entries(VARIABLES)) {
    const value = style.getPropertyValue(variable).trim();
    if (value) theme[key] = value;
  }
  return theme as ITheme;
}

/** The code font the CSS gives the terminal (--terminal-font, else the window's --font-code). */
export function fontFrom(element: Element): string | undefined {
  const style = getComputedStyle(element);
  return style.getPropertyValue('--terminal-font').trim() || undefined;
}

/** Calls `changed` whenever the theme may have changed: the system's scheme, or the root's class or data attributes. */
export function watchTheme(changed: () => void): () => void {
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  scheme.addEventListener('change', changed);
  const observer = new MutationObserver(changed);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class', 'data-theme', 'style'] });
  observer.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-theme'] });
  return () => {
    scheme.removeEventListener('change', changed);
    observer.disconnect();
  };
}
