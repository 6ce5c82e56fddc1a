// `loom extension new NAME`: a working extension to start from — a manifest, a main module with
// one command that shows a notification, and a README — in an extensions folder.
import fs from 'node:fs';
import path from 'node:path';
import { LoomError } from '../core/errors.ts';
import { EXTENSION_NAME } from './manifest.ts';

/** `my-ext` → `myExt`: the prefix of its command names, as VS Code authors write them. */
function camelCase(name: string): string {
  return name.replace(/[._-]+([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[._-]/g, '');
}

/**
 * Writes a new extension named `name` into `root` (an extensions folder); answers its folder.
 * Refuses a name that is not valid, or a folder that exists.
 *
 * @example
 *   scaffoldExtension(path.join(configDir, 'extensions'), 'hello-world'); // …/extensions/hello-world
 */
export function scaffoldExtension(root: string, name: string): { dir: string; command: string } {
  if (!EXTENSION_NAME.test(name))
    throw new LoomError('validation_error', `${JSON.stringify(name)} is not an extension name: lower case letters, digits, ".", "_" or "-", e.g. hello-world.`);
  const dir = path.join(root, name);
  if (fs.existsSync(dir)) throw new LoomError('already_exists', `${dir} already exists.`);
  const command = `${camelCase(name) || 'extension'}.hello`;
  const manifest = {
    name,
    displayName: name,
    version: '0.1.0',
    description: 'A Loom extension.',
    main: './extension.js',
    activationEvents: [`onCommand:${command}`],
    contributes: { commands: [{ command, title: `${name}: Say hello` }] },
  };
  const main = `// ${name}: a Loom extension (docs/extensions.md). It runs in a process of its own; edits
// go through the editor's checks. Run its command with: loom run-command ${command}
const { Extension, editor } = require('loom/extension');

module.exports = class extends Extension {
  activate() {
    this.registerCommand('${command}', async (who = 'world') => {
      const document = await editor.activeDocument();
      await this.showNotification(\`Hello, \${who}!\${document ? \` You are editing \${document.path}.\` : ''}\`);
      return { greeted: who };
    });
  }

  deactivate() {
    // Release what activate() took (timers, sockets); commands are disposed by Loom.
  }
};
`;
  const readme = `# ${name}

A Loom extension. Its command \`${command}\` shows a notification.

    loom run-command ${command} Ada

Edit \`extension.js\`, then \`loom extension restart ${name}\`. See docs/extensions.md.
`;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'extension.js'), main);
  fs.writeFileSync(path.join(dir, 'README.md'), readme);
  return { dir, command };
}
