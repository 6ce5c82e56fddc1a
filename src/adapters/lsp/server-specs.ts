// Which language server serves which language, and how each is started in a trusted workspace
// (`full`) and in an untrusted one (`restricted`). A cloned repository is untrusted code, and
// some servers run code from the workspace: tsserver loads the TypeScript and the plugins the
// workspace names, pyright runs the Python interpreter it finds, gopls runs `go list` (cgo,
// toolchain downloads), rust-analyzer runs build scripts and proc macros. The bundled servers
// start restricted (those features off) in an untrusted workspace; the others need trust.
// docs/code-intelligence.md has the table; docs/security.md the rule beside its tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isInside } from '../../core/workspace/paths.ts';

const require = createRequire(import.meta.url);

export type ServerMode = 'full' | 'restricted';

/** How to run one language server. */
export interface ServerSpec {
  /** `typescript`, `python`, `go`, … or the key of a settings.json entry. */
  name: string;
  /** Loom's language ids it serves (those of src/core/workspace/language.ts). */
  languages: string[];
  origin: 'bundled' | 'settings' | 'path';
  /** What it is made of (name, command, arguments, languages): a spec with the same key is the same server. */
  key: string;
  /** Why it cannot run in `mode` here (a sentence), or undefined when it can. */
  check(mode: ServerMode, context: LaunchContext): string | undefined;
  /** The command for `mode`. Async: the restricted pyright first finds the user's Python interpreter, outside the workspace. */
  launch(mode: ServerMode, context: LaunchContext): Promise<Launch>;
}

export interface LaunchContext {
  /** The workspace's real path. */
  workspace: string;
  /** A folder of Loom's own, outside the workspace, for the files a launch needs. */
  stateDir: string;
  memoryLimitMb: number;
  env: NodeJS.ProcessEnv;
}

export interface Launch {
  command: string;
  args: string[];
  initializationOptions?: unknown;
  /** The answer to `workspace/configuration` for a section (LSP's way for a server to ask for its settings). */
  configuration?: (section: string | undefined) => unknown;
  /**
   * Asks the server for a file's diagnostics now, where it can be asked (tsserver can; LSP's
   * servers otherwise only report when they choose). Answers LSP diagnostics.
   */
  pullDiagnostics?: (request: (method: string, params: unknown) => Promise<unknown>, absolutePath: string) => Promise<unknown[]>;
}

/** A settings.json entry: `languageServers.<name>`. */
export interface ServerSetting {
  command?: string;
  args?: string[];
  languages?: string[];
  enabled?: boolean;
}

/** The languages typescript-language-server serves. */
const TYPESCRIPT_LANGUAGES = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'];

/** Servers Loom knows by name and looks for on PATH; each runs workspace code, so each needs trust. */
const ON_PATH: { name: string; languages: string[]; command: string; args: string[]; runs: string }[] = [
  { name: 'go', languages: ['go'], command: 'gopls', args: [], runs: 'gopls runs `go list`, which can run cgo and download toolchains' },
  { name: 'rust', languages: ['rust'], command: 'rust-analyzer', args: [], runs: 'rust-analyzer runs build scripts and proc macros' },
  { name: 'c', languages: ['c', 'cpp'], command: 'clangd', args: [], runs: "clangd reads the workspace's compile commands, which name the compilers it asks" },
];

/**
 * The servers in force: the bundled ones and those Loom looks for on PATH, each replaced or
 * turned off by a settings.json entry of its name; and the further entries of settings.json.
 *
 * @example
 *   serverSpecs({ go: { command: '/opt/go/bin/gopls' }, python: { enabled: false } });
 */
export function serverSpecs(settings: Record<string, ServerSetting> = {}): ServerSpec[] {
  const known: ServerSpec[] = [
    typescriptSpec(),
    pythonSpec(),
    ...ON_PATH.map((entry) => trustedOnly(entry.name, entry.languages, 'path', entry.command, entry.args, entry.runs)),
  ];
  const specs: ServerSpec[] = [];
  for (const spec of known) {
    const setting = settings[spec.name];
    if (setting?.enabled === false) continue;
    if (setting?.command) specs.push(fromSetting(spec.name, setting, spec.languages));
    else specs.push(spec);
  }
  for (const [name, setting] of Object.entries(settings)) {
    if (known.some((spec) => spec.name === name) || setting.enabled === false || !setting.command) continue;
    specs.push(fromSetting(name, setting, [name]));
  }
  return specs;
}

function fromSetting(name: string, setting: ServerSetting, languages: string[]): ServerSpec {
  return trustedOnly(
    name,
    setting.languages ?? languages,
    'settings',
    setting.command!,
    setting.args ?? [],
    'a server named in settings.json may run workspace code',
  );
}

/** A server that may run workspace code and has no way to stop it: it runs in a trusted workspace only. */
function trustedOnly(name: string, languages: string[], origin: ServerSpec['origin'], command: string, args: string[], runs: string): ServerSpec {
  return {
    name,
    languages,
    origin,
    key: JSON.stringify({ name, origin, command, args, languages }),
    check(mode, context) {
      if (mode === 'restricted')
        return `The ${name} language server runs only in a trusted workspace (${runs}), and this one is not trusted: \`loom extension trust\` trusts it.`;
      if (!findExecutable(command, context.env))
        return `The ${name} language server (${command}) is not installed or not on PATH; settings.json's languageServers.${name}.command can name it.`;
      return undefined;
    },
    async launch(_mode, context) {
      return { command: findExecutable(command, context.env) ?? command, args };
    },
  };
}

/** typescript-language-server over the bundled TypeScript, run by the Node that runs Loom. */
function typescriptSpec(): ServerSpec {
  const cli = path.join(path.dirname(require.resolve('typescript-language-server/package.json')), 'lib', 'cli.mjs');
  const tsserver = require.resolve('typescript/lib/tsserver.js');
  // tsserver resolves the plugins a tsconfig.json names from three folders above itself, climbing.
  const pluginSearchStart = path.resolve(path.dirname(tsserver), '..', '..');
  return {
    name: 'typescript',
    languages: TYPESCRIPT_LANGUAGES,
    origin: 'bundled',
    key: 'bundled:typescript',
    check(mode, context) {
      if (mode === 'restricted' && isInside(context.workspace, pluginSearchStart)) {
        return `The workspace holds Loom's own TypeScript (${pluginSearchStart}), where tsserver looks for the plugins a tsconfig.json names, so tsserver cannot start without running workspace code until the workspace is trusted.`;
      }
      return undefined;
    },
    async launch(mode, context) {
      const initializationOptions = {
        hostInfo: 'loom',
        // Never: it downloads @types packages with npm, and Loom works offline.
        disableAutomaticTypingAcquisition: true,
        maxTsServerMemory: context.memoryLimitMb,
        // No global plugins; in a restricted start, Loom's TypeScript, never the workspace's own (node_modules/typescript runs as tsserver).
        plugins: [],
        tsserver: {
          // One tsserver, with the whole program: a syntax-only one beside it answers while the program loads, but knows only open files (a definition then stops at the import).
          useSyntaxServer: 'never',
          ...(mode === 'restricted' ? { path: tsserver } : {}),
        },
      };
      return { command: process.execPath, args: [cli, '--stdio'], initializationOptions, pullDiagnostics: typescriptDiagnostics };
    },
  };
}

/** tsserver's own diagnostics requests, through typescript-language-server's `typescript.tsserverRequest` command. */
async function typescriptDiagnostics(request: (method: string, params: unknown) => Promise<unknown>, absolutePath: string): Promise<unknown[]> {
  const kinds = ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'];
  const answers = await Promise.all(
    kinds.map((kind) =>
      request('workspace/executeCommand', { command: 'typescript.tsserverRequest', arguments: [kind, { file: absolutePath, includeLinePosition: false }] }),
    ),
  );
  return answers.flatMap((answer) => {
    const body = (answer as { body?: unknown } | null)?.body;
    return Array.isArray(body) ? body.map(fromTsserverDiagnostic) : [];
  });
}

/** A tsserver diagnostic (1-based line and offset) as LSP's, as typescript-language-server converts those it reports itself. */
function fromTsserverDiagnostic(entry: unknown): unknown {
  const d = entry as {
    start?: { line?: number; offset?: number };
    end?: { line?: number; offset?: number };
    text?: unknown;
    code?: unknown;
    category?: unknown;
    source?: unknown;
    reportsUnnecessary?: unknown;
    reportsDeprecated?: unknown;
  };
  const at = (p: { line?: number; offset?: number } | undefined) => ({ line: (p?.line ?? 0) - 1, character: (p?.offset ?? 0) - 1 });
  const severity = d.category === 'warning' ? 2 : d.category === 'suggestion' ? 4 : 1;
  const tags = [...(d.reportsUnnecessary ? [1] : []), ...(d.reportsDeprecated ? [2] : [])];
  return {
    range: { start: at(d.start), end: at(d.end) },
    message: d.text,
    severity,
    code: d.code,
    source: typeof d.source === 'string' ? d.source : 'typescript',
    tags,
  };
}

/** pyright's language server, run by the Node that runs Loom. */
function pythonSpec(): ServerSpec {
  const langserver = path.join(path.dirname(require.resolve('pyright/package.json')), 'langserver.index.js');
  return {
    name: 'python',
    languages: ['python'],
    origin: 'bundled',
    key: 'bundled:python',
    check: () => undefined,
    async launch(mode, context) {
      // Restricted: the interpreter is Loom's choice, run isolated; pyright would otherwise run the first `python3` it finds, from the workspace folder.
      const pythonPath = mode === 'restricted' ? await isolatedPython(context) : undefined;
      const configuration = (section: string | undefined) => {
        if (section === 'python') return pythonPath ? { pythonPath } : {};
        if (section === 'python.analysis') return { diagnosticMode: 'openFilesOnly', autoSearchPaths: true };
        return null;
      };
      return { command: process.execPath, args: [langserver, '--stdio'], configuration };
    },
  };
}

/**
 * A script that runs the user's Python isolated (`-I`: neither the current folder nor
 * PYTHON* variables on its path), found on PATH (absolute entries only) and asked where its
 * executable is from Loom's own folder, so no workspace file (a `.python-version` for pyenv, a
 * `python3` in the current folder) chooses it. Without one (no Python, or Windows, where a
 * script is not an executable), a path where nothing is: pyright then runs no interpreter and
 * knows the standard library from its own stubs only.
 */
async function isolatedPython(context: LaunchContext): Promise<string> {
  const folder = path.join(context.stateDir, 'language-servers');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const none = path.join(folder, 'no-python');
  if (process.platform === 'win32') return none;
  const found = findExecutable('python3', context.env) ?? findExecutable('python', context.env);
  const executable = found && (await pythonExecutable(found, folder, context.env));
  if (!executable) return none;
  const script = path.join(folder, 'python-isolated');
  fs.writeFileSync(script, `#!/bin/sh\nexec '${executable.replace(/'/g, `'\\''`)}' -I "$@"\n`, { mode: 0o700 });
  fs.chmodSync(script, 0o700);
  return script;
}

/** The absolute path of the interpreter behind `launcher` (a pyenv shim names no interpreter itself), or undefined. */
function pythonExecutable(launcher: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(launcher, ['-I', '-c', 'import sys; print(sys.executable)'], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out = (out + text).slice(0, 4096)));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => {
      const executable = out.trim();
      resolve(code === 0 && path.isAbsolute(executable) && !executable.includes('\n') ? executable : undefined);
    });
  });
}

/**
 * The absolute path of an executable: `command` itself when absolute, else the first match in
 * PATH's absolute folders (a relative entry would be read from the server's folder, the
 * workspace). A relative command with a slash is refused.
 */
export function findExecutable(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (path.isAbsolute(command)) return isExecutable(command) ? command : undefined;
  if (command.includes('/') || command.includes('\\')) return undefined;
  const extensions = process.platform === 'win32' ? (env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const folder of (env['PATH'] ?? env['Path'] ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(folder)) continue;
    for (const extension of extensions) {
      const candidate = path.join(folder, command + extension);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
