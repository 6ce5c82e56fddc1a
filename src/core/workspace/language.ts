// The language of a document, from its file name, then its shebang, then its content.
import path from 'node:path';

const BY_EXTENSION: Record<string, string> = {
  '.ts': 'typescript',
  '.tsx': 'typescriptreact',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.jsx': 'javascriptreact',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.json': 'json',
  '.jsonc': 'jsonc',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.py': 'python',
  '.pyi': 'python',
  '.rb': 'ruby',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.scala': 'scala',
  '.swift': 'swift',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.cs': 'csharp',
  '.php': 'php',
  '.sh': 'shellscript',
  '.bash': 'shellscript',
  '.zsh': 'shellscript',
  '.ps1': 'powershell',
  '.sql': 'sql',
  '.html': 'html',
  '.htm': 'html',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.xml': 'xml',
  '.svg': 'xml',
  '.lua': 'lua',
  '.r': 'r',
  '.dart': 'dart',
  '.ex': 'elixir',
  '.exs': 'elixir',
  '.erl': 'erlang',
  '.hs': 'haskell',
  '.ml': 'ocaml',
  '.clj': 'clojure',
  '.zig': 'zig',
  '.nim': 'nim',
  '.tf': 'terraform',
  '.proto': 'proto',
  '.graphql': 'graphql',
  '.txt': 'plaintext',
};

const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  rakefile: 'ruby',
  gemfile: 'ruby',
  '.bashrc': 'shellscript',
  '.zshrc': 'shellscript',
  'cmakelists.txt': 'cmake',
};

const BY_INTERPRETER: Record<string, string> = {
  node: 'javascript',
  deno: 'typescript',
  bun: 'javascript',
  'ts-node': 'typescript',
  tsx: 'typescript',
  python: 'python',
  python3: 'python',
  ruby: 'ruby',
  perl: 'perl',
  php: 'php',
  lua: 'lua',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  dash: 'shellscript',
  fish: 'fish',
};

export function detectLanguage(filePath: string, content: string): string {
  const name = path.basename(filePath).toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name];
  const byExtension = BY_EXTENSION[path.extname(name)];
  if (byExtension) return byExtension;
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(content.slice(0, 200));
  if (shebang) {
    const program = path.basename(shebang[1]!) === 'env' ? (shebang[2] ?? '') : path.basename(shebang[1]!);
    const interpreter = program.replace(/[\d.]+$/, '') || program;
    if (BY_INTERPRETER[program]) return BY_INTERPRETER[program];
    if (BY_INTERPRETER[interpreter]) return BY_INTERPRETER[interpreter];
  }
  const head = content.slice(0, 500).trimStart();
  if (/^<\?xml\b/.test(head)) return 'xml';
  if (/^<!doctype html|^<html\b/i.test(head)) return 'html';
  if (/^[{[]/.test(head)) {
    try {
      JSON.parse(content);
      return 'json';
    } catch {
      // not JSON after all
    }
  }
  return 'plaintext';
}
