// Which language a file is parsed as: by its extension, then by a shebang. A file of no parsed
// language is indexed as `text` (a lexical entry: its words, no outline).
import type { CodeLanguage, IndexedLanguage } from './model.ts';

const BY_EXTENSION: Record<string, CodeLanguage> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  php: 'php',
  sh: 'bash',
  bash: 'bash',
};

const BY_NAME: Record<string, CodeLanguage> = {
  rakefile: 'ruby',
  gemfile: 'ruby',
  '.bashrc': 'bash',
  '.bash_profile': 'bash',
  '.profile': 'bash',
};

const BY_INTERPRETER: Record<string, CodeLanguage> = {
  node: 'javascript',
  deno: 'typescript',
  bun: 'javascript',
  'ts-node': 'typescript',
  tsx: 'typescript',
  python: 'python',
  ruby: 'ruby',
  php: 'php',
  sh: 'bash',
  bash: 'bash',
  dash: 'bash',
};

/**
 * The language `path` (workspace-relative, `/`-separated) is indexed as; `head` is the start of
 * its text, for a shebang.
 *
 * @example
 *   languageOf('src/app.ts', '') // 'typescript'
 *   languageOf('bin/run', '#!/usr/bin/env python3\n') // 'python'
 *   languageOf('README.md', '# Title') // 'text'
 */
export function languageOf(path: string, head: string): IndexedLanguage {
  const name = (path.slice(path.lastIndexOf('/') + 1) || path).toLowerCase();
  const byName = BY_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  if (dot > 0) {
    const byExtension = BY_EXTENSION[name.slice(dot + 1)];
    if (byExtension) return byExtension;
  }
  if (head.startsWith('#!')) {
    const line = head.slice(2, head.indexOf('\n') >= 0 ? head.indexOf('\n') : Math.min(head.length, 200)).trim();
    const words = line.split(/\s+/);
    const program = baseName(words[0] ?? '') === 'env' ? (words[1] ?? '') : baseName(words[0] ?? '');
    const interpreter = program.replace(/[\d.]+$/, '');
    return BY_INTERPRETER[program] ?? BY_INTERPRETER[interpreter] ?? 'text';
  }
  return 'text';
}

function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}
