// The entry of a parsing thread (parser-pool.ts starts it). Node 20 runs no module loader
// hooks in worker threads, so tsx's ESM loader cannot bring parse-worker.ts in; its CommonJS
// hook can, in this thread, whether `loom` runs from its sources or its compiled build.
require('tsx/cjs/api').register();
require('./parse-worker.ts');
