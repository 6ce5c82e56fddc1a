// Rewrites the reference tables of docs/api.md from the operation and error tables (npm run docs:api).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiTables } from '../src/hosted/docs/api-reference.ts';
import { fillTables } from './generated-tables.ts';

const target = fileURLToPath(new URL('../docs/api.md', import.meta.url));
fs.writeFileSync(target, fillTables(fs.readFileSync(target, 'utf8'), apiTables(), 'docs/api.md'));
console.log('wrote docs/api.md');
