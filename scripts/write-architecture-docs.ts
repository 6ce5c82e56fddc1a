// Rewrites the tables of docs/architecture.md written from lint/layers.json (the layers, the
// packages each may import, core's exceptions) (npm run docs:architecture).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { architectureTables } from '../lint/layers.js';
import { fillTables } from './generated-tables.ts';

const target = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));
fs.writeFileSync(target, fillTables(fs.readFileSync(target, 'utf8'), architectureTables(), 'docs/architecture.md'));
console.log('wrote docs/architecture.md');
