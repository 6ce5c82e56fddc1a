import fs from 'node:fs';

/** The version of this Loom, from package.json. */
export const LOOM_VERSION: string = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
