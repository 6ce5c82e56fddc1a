// A TypeScript file as it is while you type, for docs/completion.md; it is not compiled. The
// user typed `'` after `from` and the editor closed the quote: the cursor is before the closing
// one, `loom complete docs/examples/auto-closed-quote.ts:5:22`.
import path from 'node:path';
import fs from 'node:'
