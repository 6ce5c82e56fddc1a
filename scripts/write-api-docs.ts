// Writes the generated tables of docs/api.md from the operation and error tables (npm run docs:api).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderApiReference } from '../src/hosted/docs/api-reference.ts';
import { fillSections } from './docs-sections.ts';

const target = fileURLToPath(new URL('../docs/api.md', import.meta.url));
fs.writeFileSync(target, fillSections(fs.readFileSync(target, 'utf8'), renderApiReference(), 'docs/api.md'));
console.log('wrote the generated sections of docs/api.md');
