// Rewrites the reference tables of docs/api.md from the operation and error tables (npm run docs:api).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiDocs } from '../src/hosted/docs/api-reference.ts';

const target = fileURLToPath(new URL('../docs/api.md', import.meta.url));
fs.writeFileSync(target, renderApiDocs(fs.readFileSync(target, 'utf8')));
console.log(`wrote ${path.relative(process.cwd(), target)}`);
