// A configuration loaded as `loom` loads one: from a config file (here written by the test),
// with no environment, so a test's servers start from exactly the settings it gives.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type LoomConfig } from '../../src/config/load.ts';

/**
 * Writes `values` (the config file's nested form: `{hosted: {port: 0}}`) into `dir` and loads it.
 * One setting differs from the shipped default unless given: composer sessions start no language
 * servers (`composer.languageServers` off), so that the many tests whose sessions edit a .ts file
 * do not each start tsserver; the tests of that feature turn it on.
 */
export function testConfig(dir: string, values: Record<string, unknown>): LoomConfig {
  const file = path.join(dir, 'loom-test-config.json');
  const composer = { languageServers: 'off', ...(values['composer'] as Record<string, unknown> | undefined) };
  fs.writeFileSync(file, JSON.stringify({ ...values, composer }));
  return loadConfig({ env: {}, configFile: file });
}
