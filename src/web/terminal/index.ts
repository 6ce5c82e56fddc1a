// The window's integrated terminal, self-contained: mount it in a bottom-panel container and
// it does the rest (docs/window.md, "The terminal").
export { mountTerminal, type TerminalPanel, type TerminalPanelOptions } from './terminal-panel.ts';
