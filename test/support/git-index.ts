// What git's index says, without its stat data: the file's bytes change whenever git refreshes
// the cached timestamps (a `git status` does), while what is staged stays the same. Reads the
// file itself (format versions 2 and 3, git's default) so a test can look after every request
// without starting git.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** One line per entry, `mode object stage path`; '' without an index; a hash of the file for other versions. */
export function indexEntries(file: string): string {
  if (!fs.existsSync(file)) return '';
  const data = fs.readFileSync(file);
  if (data.subarray(0, 4).toString('latin1') !== 'DIRC') throw new Error(`${file} is not a git index`);
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return `version ${version} ${createHash('sha256').update(data).digest('hex')}`;
  const count = data.readUInt32BE(8);
  const lines: string[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    // ctime, mtime, dev, ino (stat data, skipped), mode, uid, gid, size (skipped but mode).
    const mode = data.readUInt32BE(start + 24);
    const object = data.subarray(start + 40, start + 60).toString('hex');
    const flags = data.readUInt16BE(start + 60);
    const extended = (flags & 0x4000) !== 0;
    const nameStart = start + 62 + (extended ? 2 : 0);
    const nameEnd = data.indexOf(0, nameStart);
    const name = data.subarray(nameStart, nameEnd).toString('utf8');
    lines.push(`${mode.toString(8)} ${object} ${(flags >> 12) & 3} ${name}`);
    // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
    const length = nameEnd - start + 1;
    at = start + Math.ceil(length / 8) * 8;
  }
  return lines.join('\n');
}
