// `npm run build:web`: bundles the window (src/web) into dist/web with esbuild. `prepare` runs
// it with --if-possible, so `npm install` / `npm ci` leave a built checkout, but an install
// without the window's build dependencies (--omit=dev) still succeeds; `loom serve` builds the
// bundle itself when it is missing or stale, and says so when it cannot.
import { buildProblem, buildWindowBundle, DEFAULT_BUNDLE_PATHS } from '../src/local/window/bundle.ts';

try {
  await buildWindowBundle();
  console.log(`window bundle written to ${DEFAULT_BUNDLE_PATHS.output}`);
} catch (error) {
  if (!process.argv.includes('--if-possible')) throw error;
  console.warn(`The window's bundle was not built (${buildProblem(error)}); run npm run build:web.`);
}
