#!/usr/bin/env node
// Entry point of the `loom` command. The sources are TypeScript run through tsx's loader,
// so a checkout works with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
