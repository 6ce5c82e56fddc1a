// The syntax mode for a document, by the language id the server detected (file name, shebang,
// content: src/core/workspace/language.ts). Languages without a mode show as plain text.
import { cpp } from '@codemirror/lang-cpp';
import { css } from '@codemirror/lang-css';
import { go } from '@codemirror/lang-go';
import { html } from '@codemirror/lang-html';
import { java } from '@codemirror/lang-java';
import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { markdown } from '@codemirror/lang-markdown';
import { php } from '@codemirror/lang-php';
import { python } from '@codemirror/lang-python';
import { rust } from '@codemirror/lang-rust';
import { sql } from '@codemirror/lang-sql';
import { yaml } from '@codemirror/lang-yaml';
import { StreamLanguage } from '@codemirror/language';
import { lua } from '@codemirror/legacy-modes/mode/lua';
import { ruby } from '@codemirror/legacy-modes/mode/ruby';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import type { Extension } from '@codemirror/state';

const MODES: Record<string, () => Extension> = {
  typescript: () => javascript({ typescript: true }),
  typescriptreact: () => javascript({ typescript: true, jsx: true }),
  javascript: () => javascript(),
  javascriptreact: () => javascript({ jsx: true }),
  json: () => json(),
  jsonc: () => json(),
  markdown: () => markdown(),
  python: () => python(),
  html: () => html(),
  vue: () => html(),
  svelte: () => html(),
  css: () => css(),
  scss: () => css(),
  less: () => css(),
  go: () => go(),
  rust: () => rust(),
  java: () => java(),
  c: () => cpp(),
  cpp: () => cpp(),
  php: () => php(),
  sql: () => sql(),
  yaml: () => yaml(),
  shellscript: () => StreamLanguage.define(shell),
  ruby: () => StreamLanguage.define(ruby),
  toml: () => StreamLanguage.define(toml),
  lua: () => StreamLanguage.define(lua),
};

/** The mode for a language id; none for plain text and languages without one. */
export function languageMode(language: string): Extension {
  return MODES[language]?.() ?? [];
}

/** Whether the window highlights this language. */
export function hasMode(language: string): boolean {
  return language in MODES;
}
