// Document buffers: what the local server holds open documents in.
export { TextBuffer, type Position } from './text-buffer.ts';
export { detectEol, type Eol } from './line-index.ts';
