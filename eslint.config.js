// ESLint (npm run lint): the recommended rules of ESLint and typescript-eslint, and the layer
// rule (lint/layers.js, from lint/layers.json). Formatting is Prettier's (npm run format:check).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import layers from './lint/layers.js';

const readonly = (names) => Object.fromEntries(names.map((name) => [name, 'readonly']));

export default defineConfig(
  // dist/: built files (the window's bundle, npm run build:web).
  { ignores: ['node_modules/', 'coverage/', '.loom-data/', 'dist/', 'docs/examples/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  {
    rules: {
      // The same convention as tsc's noUnusedParameters: a leading _ marks what is unused on
      // purpose, and a rest sibling is how an object is copied without some of its keys.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A `let` set after a closure that reads it was made (a handler built before the object
      // it reports to) cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Module augmentation (declare module 'fastify') extends an interface by another one.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Regular expressions that name control characters exist to refuse or escape them
      // (terminal output, log redaction, paths in edits).
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/store/migrations/**/*.ts'],
    // A migration takes Kysely<any>, as Kysely advises: it must not depend on today's schema type.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benchmarks read JSON answers whose shape is what they assert.
      '@typescript-eslint/no-explicit-any': 'off',
      // A test's regular expression copies the output it expects, spaces included.
      'no-regex-spaces': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ignores: ['src/hosted/web/assets/**'],
    languageOptions: { globals: readonly(['process', 'console', 'URL']) },
  },
  {
    // An example extension in CommonJS, as many extension authors write them (its package.json has no "type").
    files: ['examples/extensions/word-count/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: readonly(['require', 'module']) },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The code index's parsing threads start in CommonJS: Node 20 runs no ESM loader hooks in worker threads.
    files: ['src/adapters/code/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: readonly(['require']) },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The dashboard's script runs in the browser.
    files: ['src/hosted/web/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: readonly(['document', 'window', 'navigator', 'fetch', 'Node']) },
  },
);
