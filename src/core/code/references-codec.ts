// A file's references packed for the index's database: the distinct names once, then each
// occurrence as (name number, line delta, column) in variable-length integers, about three
// bytes an occurrence where JSON would take thirty. An identifier never spans lines, so its
// end is its start plus its name's length.
import type { Reference } from './model.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Packs references (in file order) into bytes.
 *
 * @example decodeReferences(encodeReferences(refs)) // deep-equals refs
 */
export function encodeReferences(references: readonly Reference[]): Uint8Array {
  const numbers = new Map<string, number>();
  const names: string[] = [];
  for (const reference of references) {
    if (!numbers.has(reference.name)) {
      numbers.set(reference.name, names.length);
      names.push(reference.name);
    }
  }
  const out = new Writer();
  out.uint(names.length);
  for (const name of names) {
    const bytes = encoder.encode(name);
    out.uint(bytes.length);
    out.bytes(bytes);
  }
  out.uint(references.length);
  let line = 0;
  for (const reference of references) {
    const { start } = reference.range;
    out.uint(numbers.get(reference.name)!);
    // References come in file order; one out of order (never from extraction) still round-trips.
    out.int(start.line - line);
    out.uint(start.column);
    line = start.line;
  }
  return out.finish();
}

/** The references packed by encodeReferences; only those named `only` when it is given. No bytes (a file indexed as text) are no references. */
export function decodeReferences(bytes: Uint8Array, only?: string): Reference[] {
  if (bytes.length === 0) return [];
  const input = new Reader(bytes);
  const names: string[] = [];
  const nameCount = input.uint();
  for (let i = 0; i < nameCount; i++) names.push(decoder.decode(input.bytes(input.uint())));
  const wanted = only === undefined ? -1 : names.indexOf(only);
  if (only !== undefined && wanted < 0) return [];
  const references: Reference[] = [];
  const count = input.uint();
  let line = 0;
  for (let i = 0; i < count; i++) {
    const number = input.uint();
    line += input.int();
    const column = input.uint();
    if (wanted >= 0 && number !== wanted) continue;
    const name = names[number] ?? '';
    references.push({ name, range: { start: { line, column }, end: { line, column: column + name.length } } });
  }
  return references;
}

/** The distinct names of packed references, without decoding the occurrences. */
export function referencedNames(bytes: Uint8Array): string[] {
  if (bytes.length === 0) return [];
  const input = new Reader(bytes);
  const names: string[] = [];
  const nameCount = input.uint();
  for (let i = 0; i < nameCount; i++) names.push(decoder.decode(input.bytes(input.uint())));
  return names;
}

class Writer {
  private buffer = new Uint8Array(256);
  private length = 0;

  uint(value: number): void {
    let rest = value >>> 0 === value ? value : Math.max(0, Math.floor(value));
    this.room(10);
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.buffer[this.length++] = rest;
  }

  /** A signed integer, zig-zag encoded. */
  int(value: number): void {
    this.uint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private room(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

class Reader {
  private at = 0;

  constructor(private readonly buffer: Uint8Array) {}

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.buffer.length) throw new Error('The packed references end early.');
      const byte = this.buffer[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  }

  int(): number {
    const zigzag = this.uint();
    return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
  }

  bytes(length: number): Uint8Array {
    if (this.at + length > this.buffer.length) throw new Error('The packed references end early.');
    const slice = this.buffer.subarray(this.at, this.at + length);
    this.at += length;
    return slice;
  }
}
