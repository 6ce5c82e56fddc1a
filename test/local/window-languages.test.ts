// The window highlights the common languages: for each, the language id the server detects
// from a file's name or shebang (src/core/workspace/language.ts) has a CodeMirror mode in the
// window (src/web/editor/languages.ts), so the two tables cannot drift apart unnoticed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLanguage } from '../../src/core/workspace/language.ts';
import { hasMode, languageMode } from '../../src/web/editor/languages.ts';

/** The languages docs/window.md says are highlighted, as files a workspace holds. */
const FILES = [
  'a.ts',
  'a.tsx',
  'a.js',
  'a.mjs',
  'a.jsx',
  'a.json',
  'a.css',
  'a.scss',
  'a.less',
  'a.html',
  'a.vue',
  'a.svelte',
  'a.md',
  'a.py',
  'a.go',
  'a.rs',
  'a.java',
  'a.c',
  'a.h',
  'a.cpp',
  'a.php',
  'a.sql',
  'a.yaml',
  'a.yml',
  'a.sh',
  'a.rb',
  'a.toml',
  'a.lua',
];

describe("the window's language modes", () => {
  it('has a mode for the language the server detects in each common kind of file', () => {
    const missing = FILES.filter((file) => !hasMode(detectLanguage(file, '')));
    assert.deepEqual(missing, []);
    // A script without an extension, by its shebang.
    assert.ok(hasMode(detectLanguage('bin/run', '#!/usr/bin/env bash\necho hi\n')));
    assert.ok(hasMode(detectLanguage('bin/tool', '#!/usr/bin/env python3\nprint(1)\n')));
  });

  it('gives a mode (an extension with a language) for each, and none for plain text', () => {
    for (const file of FILES) assert.notDeepEqual(languageMode(detectLanguage(file, '')), [], file);
    assert.deepEqual(languageMode(detectLanguage('notes.txt', 'just words')), []);
  });
});
