// Reading a stream from outside (src/contracts/framing.ts's LineFramer, which the openai
// provider's SSE reader, loom mcp and the extension channel use). First MB/s over short lines
// (SSE events) against the anchor, the simplest reader that does the job: the text so far joined
// with each chunk and cut at its newlines (`buffer += text; buffer.indexOf('\n')`, what the SSE
// reader was). Then the time by the length of one line without end, for the LineFramer, the
// anchor and the MCP SDK's reader (`Buffer.concat` on every chunk): a linear reader's time
// doubles when the line doubles, a quadratic one's quadruples.
//
//   npx tsx bench/streams.ts            (BENCH_MB: the short lines' total, 64 by default)
import { LineFramer } from '../src/contracts/framing.ts';
import { collectGarbage, readPositive } from './support.ts';

const CHUNK = 64 * 1024;
const MB = 1024 * 1024;

function chunksOf(data: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += CHUNK) chunks.push(data.subarray(at, at + CHUNK));
  return chunks;
}

/** Milliseconds `read` takes over `chunks`, the best of `runs` after a GC each. */
function time(chunks: Buffer[], read: (chunks: Buffer[]) => number, runs = 3): number {
  let best = Infinity;
  let sink = 0;
  for (let run = 0; run < runs; run++) {
    collectGarbage();
    const started = performance.now();
    sink += read(chunks);
    best = Math.min(best, performance.now() - started);
  }
  if (sink < 0) console.log(sink);
  return best;
}

const framer = (max: number) => (chunks: Buffer[]) => {
  const lines = new LineFramer({ maxMessageBytes: max });
  let count = 0;
  for (const chunk of chunks) count += lines.push(chunk).length;
  return count + lines.end().length;
};

/** The anchor, and the SSE reader before: the text so far joined with each chunk, searched from its start. */
const stringBuffer = (chunks: Buffer[]) => {
  const decoder = new TextDecoder();
  let buffer = '';
  let count = 0;
  for (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      buffer = buffer.slice(newline + 1);
      count++;
    }
  }
  return count + buffer.length;
};

/** The MCP SDK's ReadBuffer: a Buffer.concat on every chunk, searched from its start. */
const concatBuffer = (chunks: Buffer[]) => {
  let buffer: Buffer | undefined;
  let count = 0;
  for (const chunk of chunks) {
    buffer = buffer ? Buffer.concat([buffer, chunk]) : chunk;
    let newline: number;
    while ((newline = buffer.indexOf(10)) >= 0) {
      buffer = buffer.subarray(newline + 1);
      count++;
    }
  }
  return count + (buffer?.length ?? 0);
};

const totalMb = readPositive('BENCH_MB', 64);
const line = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'token' } }] })}\n`;
const short = chunksOf(Buffer.from(line.repeat(Math.ceil((totalMb * MB) / line.length))));

const rate = (chunks: Buffer[], ms: number) => (chunks.reduce((sum, chunk) => sum + chunk.length, 0) / MB / (ms / 1000)).toFixed(0);
const anchorShort = time(short, stringBuffer);
const loomShort = time(short, framer(16 * MB));
console.log(
  `short lines (${totalMb} MB, ${line.length} bytes each): anchor ${rate(short, anchorShort)} MB/s, LineFramer ${rate(short, loomShort)} MB/s, ratio ${(anchorShort / loomShort).toFixed(2)}`,
);

console.log('\none line without end, ms by its length (the growth from the line before it in brackets):');
console.log('   MB   LineFramer     string += (anchor)   Buffer.concat (MCP SDK)');
const previous: number[] = [];
for (const mb of [2, 4, 8, 16]) {
  const chunks = chunksOf(Buffer.alloc(mb * MB, 0x78));
  const row = [time(chunks, framer(32 * MB)), time(chunks, stringBuffer, 2), time(chunks, concatBuffer, 2)];
  const cell = (ms: number, i: number) => `${ms.toFixed(1).padStart(8)} (${previous[i] ? (ms / previous[i]!).toFixed(1) : ' - '}×)`;
  console.log(`${String(mb).padStart(5)} ${row.map(cell).join('   ')}`);
  previous.splice(0, 3, ...row);
}
