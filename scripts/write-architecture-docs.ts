// Rewrites the layers table of docs/architecture.md from lint/layers.json (npm run docs:architecture).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { layersTable } from '../lint/layers.js';
import { fillTables } from './generated-tables.ts';

const target = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));
fs.writeFileSync(target, fillTables(fs.readFileSync(target, 'utf8'), new Map([['layers', layersTable()]]), 'docs/architecture.md'));
console.log('wrote docs/architecture.md');
