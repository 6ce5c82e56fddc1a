// How this `loom` process runs, as bin/loom.js started it: from the compiled build in dist/cli/
// or from the TypeScript sources through tsx (a checkout with no build, or edited since).
export const runtime = { compiled: false };
