// `npm run build:web` (and `prepare`, so `npm install` / `npm ci` leave it built): bundles the
// window (src/web) into dist/web with esbuild. `loom serve` builds it too when it is missing or
// stale, so this is for installations and CI, not a step anyone must remember.
import { buildWindowBundle, DEFAULT_BUNDLE_PATHS } from '../src/local/window/bundle.ts';

await buildWindowBundle();
console.log(`window bundle written to ${DEFAULT_BUNDLE_PATHS.output}`);
