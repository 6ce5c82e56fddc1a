// A TypeScript file as it is while you type, for the README's first completion; it is not
// compiled. The cursor is at the end of the last line: `loom complete
// docs/examples/first-completion.ts:12:81` asks the builtin model, which has learned the
// workspace, for the rest of that line.
import fs from 'node:fs';
import { CliError } from '../../src/cli/errors.ts';

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).
