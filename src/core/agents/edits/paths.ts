// Recognising the file path a model writes before a block: alone on its line, maybe decorated
// (`src/a.ts`, **src/a.ts**, ### src/a.ts, File: src/a.ts, src/a.ts:), or in a fence's info
// string (```ts src/a.ts, ```ts:src/a.ts, ```ts title="src/a.ts"). Prose is never read as a
// path: a path line holds a path and nothing else.

/** Files commonly named without an extension. */
const BARE_NAMES = new Set([
  'Makefile',
  'makefile',
  'GNUmakefile',
  'Dockerfile',
  'Containerfile',
  'Rakefile',
  'Gemfile',
  'Procfile',
  'Jenkinsfile',
  'Vagrantfile',
  'Brewfile',
  'Justfile',
  'justfile',
  'Caddyfile',
  'LICENSE',
  'README',
  'CODEOWNERS',
  'AUTHORS',
  'CHANGELOG',
  'NOTICE',
]);

const MAX_PATH_LENGTH = 1024;
/** Characters file paths in a model's answer do not have, and code and prose do. */
const NOT_IN_PATHS = /[\s{}<>=;,|*?"'`!&^%]/;
/** Extensions of the files an agent edits, for telling `utils.ts` in prose from `e.g.` or `v1.2`. */
const CODE_EXTENSIONS =
  /\.(?:[cm]?[jt]sx?|py|pyi|rb|go|rs|java|kt|kts|swift|c|h|cc|cpp|hpp|cxx|cs|fs|php|pl|lua|r|scala|clj|ex|exs|erl|hs|ml|dart|vue|svelte|astro|html?|css|scss|sass|less|json|jsonc|ya?ml|toml|ini|cfg|conf|env|xml|sql|graphql|proto|md|mdx|rst|txt|sh|bash|zsh|fish|ps1|bat|cmake|gradle|tf|nix|lock)$/i;

/** Whether `text` (already undecorated) can be a path: no spaces or code punctuation, a folder, an extension or a known name. */
export function looksLikePath(text: string): boolean {
  if (text.length === 0 || text.length > MAX_PATH_LENGTH || NOT_IN_PATHS.test(text) || /[\u0000-\u001f\u007f]/.test(text)) return false;
  if (text.includes('://') || text.endsWith('/') || text.endsWith('.') || text.endsWith(':')) return false;
  const name = text.slice(text.lastIndexOf('/') + 1);
  if (text.includes('/') || text.includes('\\')) return name.length > 0;
  if (BARE_NAMES.has(name)) return true;
  // name.ext or .dotfile, with letters somewhere (not "1.5").
  // ($ and brackets: route files such as `$id.tsx`, `[slug].tsx`, `(group)`.)
  return /^\.?[\w@+$[\]()-][\w.@+$[\]()-]*\.[\w+-]+$|^\.[\w.-]+$/.test(name) && /[A-Za-z]/.test(name);
}

/** Removes what models put around a path on its own line. The result may still be prose. */
function undecorate(line: string): string {
  let text = line.trim();
  text = text.replace(/^#{1,6}\s+/, ''); // a heading
  text = text.replace(/^(?:[-*+]|\d+[.)])\s+/, ''); // a list item
  for (let again = true; again;) {
    const before = text;
    text = text.replace(/^(\*\*|__|\*|_)(.+)\1$/, '$2').trim(); // **bold**, _emphasis_
    text = text.replace(/^(?:file(?:name)?|path)\s*:\s*/i, ''); // File: …
    text = text.replace(/:$/, '').trim(); // src/a.ts:
    text = text.replace(/\s+\((?:new|new file|created?|updated?|modified|changed)\)$/i, ''); // src/a.ts (new file)
    again = text !== before;
  }
  const quoted = /^(`+)([^`].*?)\1$/.exec(text) ?? /^(["'])(.+)\1$/.exec(text);
  if (quoted) text = quoted[2]!.trim().replace(/:$/, '');
  return text.replace(/^\.\//, '');
}

/** The path a whole line stands for, or null when the line is something else. */
export function pathFromLine(line: string): string | null {
  const text = undecorate(line);
  return looksLikePath(text) ? text : null;
}

/**
 * The path in a fence's info string (what follows the opening ```), or null: ```ts src/a.ts,
 * ```ts:src/a.ts, ```src/a.ts, ```ts title="src/a.ts" (also file=, filename=, path=).
 */
export function pathFromFenceInfo(info: string): string | null {
  for (const word of info.trim().split(/\s+/)) {
    const attribute = /^(?:title|file|filename|path)=(["']?)(.+)\1$/i.exec(word);
    const candidate = attribute ? attribute[2]! : word.includes(':') && !word.includes('://') ? word.slice(word.indexOf(':') + 1) : word;
    const path = candidate.replace(/^\.\//, '');
    if (looksLikePath(path)) return path;
  }
  return null;
}

/**
 * The paths prose mentions: in backticks, or bare words with a folder or a source file's
 * extension. Used only to refuse to guess: a block without a path line inherits the previous
 * block's path unless the text between them names some other file.
 */
export function mentionedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const path = match[1]!.trim().replace(/^\.\//, '');
    if (looksLikePath(path)) found.add(path);
  }
  for (const word of text.replace(/`[^`\n]+`/g, ' ').split(/\s+/)) {
    const path = word.replace(/^[("'*_]+|[)"'*_:;,.!?]+$/g, '').replace(/^\.\//, '');
    if (looksLikePath(path) && (path.includes('/') || CODE_EXTENSIONS.test(path))) found.add(path);
  }
  return [...found];
}
