// Rewrites the reference tables of docs/local-api.md from the local route table (npm run docs:api).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderLocalApiDocs } from '../src/local/reference-docs.ts';

const target = fileURLToPath(new URL('../docs/local-api.md', import.meta.url));
fs.writeFileSync(target, renderLocalApiDocs(fs.readFileSync(target, 'utf8')));
console.log(`wrote ${path.relative(process.cwd(), target)}`);
