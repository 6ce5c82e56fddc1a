// Writes docs/configuration.md from the settings table (npm run docs:config).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigDocs } from '../src/config/docs.ts';

const target = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, renderConfigDocs());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
