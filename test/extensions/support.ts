// Extensions written by tests: a folder with a manifest and a CommonJS main module, in the
// user's extensions folder (config dir) or a workspace's `.loom/extensions`.
import fs from 'node:fs';
import path from 'node:path';

export interface TestExtension {
  name: string;
  /** The body of `activate(context)`; `this` is the extension, `api` the module `loom/extension`. */
  activate?: string;
  deactivate?: string;
  commands?: { command: string; title?: string }[];
  onStartup?: boolean;
  /** Top-level code before the class (requires, helpers). */
  prelude?: string;
}

/** Writes the extension into `root` (an extensions folder); answers its folder. */
export function writeExtension(root: string, extension: TestExtension): string {
  const dir = path.join(root, extension.name);
  fs.mkdirSync(dir, { recursive: true });
  const commands = extension.commands ?? [];
  const manifest = {
    name: extension.name,
    version: '1.0.0',
    main: './main.js',
    activationEvents: extension.onStartup ? ['onStartup'] : commands.map(({ command }) => `onCommand:${command}`),
    contributes: { commands: commands.map(({ command, title }) => ({ command, title: title ?? command })) },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(
    path.join(dir, 'main.js'),
    `const api = require('loom/extension');
const fs = require('node:fs');
const path = require('node:path');
${extension.prelude ?? ''}
module.exports = class extends api.Extension {
  async activate(context) { ${extension.activate ?? ''} }
  async deactivate() { ${extension.deactivate ?? ''} }
};
`,
  );
  return dir;
}

export function userExtensions(configDir: string): string {
  return path.join(configDir, 'extensions');
}

export function workspaceExtensions(workspace: string): string {
  return path.join(workspace, '.loom', 'extensions');
}
