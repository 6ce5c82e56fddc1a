#!/usr/bin/env node
// Entry point of the `loom` command. It runs the JavaScript that `npm install` compiled into
// dist/cli/ (scripts/build-cli.js, the `prepare` script) when that build matches the sources
// file for file (bin/build-stamp.js); otherwise the TypeScript sources through tsx's loader, so
// a checkout works with no build step and an edited one never runs stale code.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { freshCompiledEntry, prerenderedHelp } from './build-stamp.js';

// `loom --version` needs nothing but package.json (config/version.ts reads the same field).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

const compiled = freshCompiledEntry();

// `loom --help` from the text the build rendered with commander, while that build is current:
// loading commander and every command's definition to print static text doubled the time.
if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
  const help = prerenderedHelp(compiled);
  if (help !== undefined) {
    process.stdout.write(help);
    process.exit(0);
  }
}
let entry;
if (compiled) {
  entry = await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import('../src/cli/main.ts');
}
await entry.main(process.argv, { compiled: Boolean(compiled) });
