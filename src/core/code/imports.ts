// Which workspace files an import names, for the file graph: relative JavaScript and
// TypeScript specifiers (`./utils/url`, `../y.js`), Python modules (`.ctx`, `..helpers`,
// `flask.json`) and Go packages (the folder an import path ends with). Packages from outside
// the workspace resolve to nothing.

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.d.ts'];

/** Resolves imports against one workspace's files. */
export class ImportResolver {
  private readonly files: ReadonlySet<string>;
  private pythonModules: Map<string, string | null> | undefined;
  private goFolders: Map<string, string[]> | undefined;

  constructor(paths: Iterable<string>) {
    this.files = new Set(paths);
  }

  /**
   * The workspace files `source`, imported from `from`, names (none when it is a package from
   * elsewhere, or ambiguous).
   *
   * @example
   * new ImportResolver(['src/a.ts', 'src/utils/url.ts']).resolve('src/a.ts', './utils/url') // ['src/utils/url.ts']
   */
  resolve(from: string, source: string): string[] {
    if (from.endsWith('.py')) return this.python(from, source);
    if (from.endsWith('.go')) return this.go(source);
    if (source.startsWith('.')) return this.script(from, source);
    return [];
  }

  private script(from: string, source: string): string[] {
    const base = join(dirname(from), source);
    if (base === undefined) return [];
    // `./x.js` written for a TypeScript file x.ts (ESM's rule), or no extension at all.
    const stem = base.replace(/\.[cm]?jsx?$/, '');
    const candidates = [base, ...SCRIPT_EXTENSIONS.map((extension) => stem + extension), ...SCRIPT_EXTENSIONS.map((extension) => `${base}/index${extension}`)];
    const found = candidates.find((candidate) => this.files.has(candidate));
    return found ? [found] : [];
  }

  private python(from: string, source: string): string[] {
    const dots = /^\.*/.exec(source)![0].length;
    const rest = source.slice(dots).split('.').filter(Boolean).join('/');
    if (dots > 0) {
      let folder = dirname(from);
      for (let i = 1; i < dots; i++) folder = dirname(folder);
      const base = folder ? (rest ? `${folder}/${rest}` : folder) : rest;
      const found = [`${base}.py`, `${base}/__init__.py`].find((candidate) => this.files.has(candidate));
      return found ? [found] : [];
    }
    // An absolute module: the one file whose path ends with it (flask.json → src/flask/json.py).
    this.pythonModules ??= this.indexPythonModules();
    const found = this.pythonModules.get(rest);
    return found ? [found] : [];
  }

  private indexPythonModules(): Map<string, string | null> {
    const modules = new Map<string, string | null>();
    for (const path of this.files) {
      if (!path.endsWith('.py')) continue;
      const parts = path.slice(0, -3).split('/');
      if (parts[parts.length - 1] === '__init__') parts.pop();
      for (let start = 0; start < parts.length; start++) {
        const name = parts.slice(start).join('/');
        // Two files answering one name: ambiguous, so neither.
        modules.set(name, modules.has(name) && modules.get(name) !== path ? null : path);
      }
    }
    return modules;
  }

  // A Go import names a package, a folder: its files (tests left out), when one folder of the
  // workspace ends with the import path's last elements.
  private go(source: string): string[] {
    if (this.goFolders === undefined) {
      this.goFolders = new Map();
      for (const path of this.files) {
        if (!path.endsWith('.go') || path.endsWith('_test.go')) continue;
        const folder = dirname(path);
        const list = this.goFolders.get(folder);
        if (list) list.push(path);
        else this.goFolders.set(folder, [path]);
      }
    }
    const elements = source.split('/');
    for (let start = 0; start < elements.length; start++) {
      const files = this.goFolders.get(elements.slice(start).join('/'));
      if (files) return files;
    }
    return [];
  }
}

function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

// `folder` joined with a relative path; undefined when it climbs out of the workspace.
function join(folder: string, relative: string): string | undefined {
  const parts = folder ? folder.split('/') : [];
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}
