// What a file is for, from its path (and, for bundles, its text): a test, generated output, or
// the source a task is most likely to change. Ranking demotes tests and generated files: a task
// names behaviour, and tests and bundles repeat the words of the source they check or copy.

// Test folders (tests/, __tests__/, spec/, testdata/, testsuite/) and test file names
// (x.test.ts, x.spec.js, x_test.go, test_x.py, x_test.py).
const TEST_FOLDER = /(^|\/)(tests?|__tests__|__mocks__|specs?|testdata|testsuite|fixtures)\//i;
const TEST_NAME = /(^|\/)[^/]*[._-](test|spec)s?\.[^/.]+$|(^|\/)test_[^/]*\.py$|_test\.(go|py)$|(^|\/)conftest\.py$/i;

// Build output, vendored code and minified bundles.
const GENERATED_FOLDER = /(^|\/)(dist|build|out|vendor|node_modules|coverage|\.next|target)\//;
const GENERATED_NAME = /[.-]min\.[cm]?js$|\.bundle\.[cm]?js$|\.map$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|go\.sum)$/;
// A bundle committed outside such a folder still has long lines: minified or concatenated code.
const LONG_LINES = 200;

/** A test file or a file in a test folder. @example isTestPath('src/router.test.ts') // true */
export function isTestPath(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_NAME.test(path);
}

/**
 * Build output, vendored or minified code: by its folder or name, or by lines averaging over 200
 * characters when its text is given.
 *
 * @example isGeneratedPath('dist/axios.js') // true
 */
export function isGeneratedPath(path: string, text?: string): boolean {
  if (GENERATED_FOLDER.test(path) || GENERATED_NAME.test(path)) return true;
  if (text === undefined || text.length < 4096) return false;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.length / lines > LONG_LINES;
}
