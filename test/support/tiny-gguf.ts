// Writes tiny GGUF models with random weights that llama.cpp (node-llama-cpp) loads and runs:
// enough for tests and benchmarks of the gguf provider without downloading real weights.
//
// Format: GGUF v3, little endian (github.com/ggml-org/ggml docs/gguf.md). A header (magic,
// version, tensor count, metadata count), the metadata key/values, the tensor infos (name,
// dimensions with ne[0] first, i.e. the row length first, type, offset into the data
// section), then the tensor data, every tensor starting on a 32-byte boundary (the default
// `general.alignment`). All tensors are F32. The architecture is `llama`; the vocabulary an
// SPM one (`tokenizer.ggml.model = "llama"`): <unk>, <s>, </s>, the 256 byte tokens
// <0x00>…<0xFF> that any text falls back to, then printable ASCII characters and '▁'-words
// common in code, so code tokenizes into a realistic number of tokens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seeded } from './random.ts';

export interface TinyGgufOptions {
  /** Embedding width (default 64); a multiple of `nHead`, head size even. */
  nEmbd?: number;
  /** Transformer blocks (default 2). */
  nLayer?: number;
  /** Attention heads (default 4). */
  nHead?: number;
  /** Feed-forward width (default 4 × nEmbd). */
  nFf?: number;
  /** Context length the model says it was trained on (default 4096). */
  contextLength?: number;
  /** Seed of the weights' PRNG: the same options write the same bytes. */
  seed?: number;
  /**
   * Fill-in-the-middle tokens `<|fim_prefix|>`, `<|fim_suffix|>`, `<|fim_middle|>` (control
   * tokens), declared the way llama.cpp reads them:
   * - `'fim'`: `tokenizer.ggml.fim_pre_token_id` / `fim_suf_token_id` / `fim_mid_token_id`;
   * - `'legacy'`: the older `tokenizer.ggml.prefix_token_id` / `suffix_token_id` / `middle_token_id`;
   * - `'names'`: no key at all, the tokens alone (llama.cpp recognises them by their text);
   * - `false` (default): no FIM tokens in the vocabulary.
   */
  fim?: 'fim' | 'legacy' | 'names' | false;
  /** Overrides `tokenizer.ggml.eos_token_id` (default 2, `</s>`): any token can be made to end generation. */
  eosTokenId?: number;
  /**
   * Zeroes the output rows of the control tokens (<s>, </s>, the FIM ones): their logit is 0
   * while the largest of the hundreds of random others is positive, so greedy decoding never
   * picks them and generation always runs to its token limit (benchmarks want that).
   */
  neverEnd?: boolean;
  /** `general.name`. */
  name?: string;
  /**
   * A chat template in `tokenizer.chat_template` (Jinja, as Hugging Face tokenizers carry
   * it): `'chatml'` writes {@link CHATML_TEMPLATE} and adds its turn markers `<|im_start|>`
   * and `<|im_end|>` as control tokens, `<|im_end|>` also ending generation (EOT); any other
   * string is written as it is. Absent: no template, like a base model's file.
   */
  chatTemplate?: 'chatml' | string;
  /**
   * Adds a control token with this text whose logit is the largest whatever the input, so that
   * greedy decoding writes it wherever a grammar allows it: with a chat template's tool-call
   * opener (`<tool_call>\n{"name": "` for 'chatml'), the model always calls a function. Built
   * by giving every token's embedding a large first component, which dominates the residual
   * stream, and only this token's output row a weight on it.
   */
  favouredToken?: string;
}

export interface TinyGguf {
  file: string;
  /** Token texts by id. */
  vocabulary: string[];
  /** Ids of the FIM tokens, when the vocabulary has them. */
  fimTokens?: { prefix: number; suffix: number; middle: number };
  /** Ids of the ChatML turn markers, with `chatTemplate: 'chatml'`. */
  chatTokens?: { start: number; end: number };
  /** Id of `favouredToken`. */
  favouredToken?: number;
  bytes: number;
}

const enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

const enum TokenType {
  normal = 1,
  unknown = 2,
  control = 3,
  byte = 6,
}

const GGML_TYPE_F32 = 0;
const ALIGNMENT = 32;

type MetadataValue =
  | { type: ValueType.UINT32 | ValueType.INT32 | ValueType.FLOAT32; value: number }
  | { type: ValueType.BOOL; value: boolean }
  | { type: ValueType.STRING; value: string }
  | { type: ValueType.ARRAY; itemType: ValueType.STRING; value: readonly string[] }
  | { type: ValueType.ARRAY; itemType: ValueType.INT32 | ValueType.FLOAT32; value: readonly number[] };

const u32 = (value: number): MetadataValue => ({ type: ValueType.UINT32, value });
const f32 = (value: number): MetadataValue => ({ type: ValueType.FLOAT32, value });
const str = (value: string): MetadataValue => ({ type: ValueType.STRING, value });
const bool = (value: boolean): MetadataValue => ({ type: ValueType.BOOL, value });

/** Little-endian byte writer that grows as it goes. */
class ByteWriter {
  private buffer = Buffer.alloc(1 << 16);
  length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
  u32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(value, this.length);
  }
  i32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeInt32LE(value, this.length);
  }
  u64(value: number): void {
    this.reserve(8);
    this.length = this.buffer.writeBigUInt64LE(BigInt(value), this.length);
  }
  f32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeFloatLE(value, this.length);
  }
  u8(value: number): void {
    this.reserve(1);
    this.length = this.buffer.writeUInt8(value, this.length);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.reserve(bytes.length);
    this.length += bytes.copy(this.buffer, this.length);
  }
  padTo(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0);
  }
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function writeValue(out: ByteWriter, value: MetadataValue): void {
  out.u32(value.type);
  switch (value.type) {
    case ValueType.UINT32:
      return out.u32(value.value);
    case ValueType.INT32:
      return out.i32(value.value);
    case ValueType.FLOAT32:
      return out.f32(value.value);
    case ValueType.BOOL:
      return out.u8(value.value ? 1 : 0);
    case ValueType.STRING:
      return out.string(value.value);
    case ValueType.ARRAY:
      out.u32(value.itemType);
      out.u64(value.value.length);
      for (const item of value.value) {
        if (value.itemType === ValueType.STRING) out.string(item as string);
        else if (value.itemType === ValueType.INT32) out.i32(item as number);
        else out.f32(item as number);
      }
  }
}

/**
 * A ChatML chat template with tool calling in the Hermes style that Qwen2.5 and many open
 * models use: the tools listed in the system turn, a call as `<tool_call>` JSON, a result as
 * `<tool_response>` in a user turn.
 */
export const CHATML_TEMPLATE = [
  '{% if tools %}',
  '<|im_start|>system\n',
  "{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}{% else %}You are a helpful assistant.{% endif %}",
  '\n\n# Tools\n\nYou may call functions. Their signatures are within <tools></tools>:\n<tools>',
  '{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}',
  '\n</tools>\n\nTo call a function, answer with a JSON object within <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n',
  "{% elif messages[0]['role'] == 'system' %}",
  "<|im_start|>system\n{{ messages[0]['content'] }}<|im_end|>\n",
  '{% endif %}',
  '{% for message in messages %}',
  "{% if message.role == 'user' or (message.role == 'assistant' and not message.tool_calls) %}",
  '<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n',
  "{% elif message.role == 'assistant' %}",
  '<|im_start|>assistant\n{% if message.content %}{{ message.content }}{% endif %}',
  '{% for tool_call in message.tool_calls %}',
  '{% if tool_call.function is defined %}{% set tool_call = tool_call.function %}{% endif %}',
  '\n<tool_call>\n{"name": "{{ tool_call.name }}", "arguments": {{ tool_call.arguments | tojson }}}\n</tool_call>',
  '{% endfor %}<|im_end|>\n',
  "{% elif message.role == 'tool' %}",
  "{% if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}",
  '\n<tool_response>\n{{ message.content }}\n</tool_response>',
  "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}",
  '{% endif %}',
  '{% endfor %}',
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}',
].join('');

const WORDS = [
  'const',
  'let',
  'var',
  'function',
  'return',
  'if',
  'else',
  'for',
  'while',
  'of',
  'in',
  'import',
  'from',
  'export',
  'default',
  'class',
  'extends',
  'new',
  'this',
  'true',
  'false',
  'null',
  'undefined',
  'async',
  'await',
  'type',
  'interface',
  'string',
  'number',
  'boolean',
  'void',
  'value',
  'values',
  'name',
  'item',
  'items',
  'result',
  'count',
  'index',
  'length',
  'data',
  'key',
  'list',
  'map',
  'get',
  'set',
  'add',
  'push',
  'error',
  'throw',
  'try',
  'catch',
  'def',
  'self',
  'print',
  'None',
  'True',
  'False',
  'and',
  'or',
  'not',
  'is',
  'to',
  'the',
  'a',
  'with',
  'as',
  'line',
  'text',
  'node',
  'next',
  'prev',
  'left',
  'right',
  'size',
  'sum',
  'total',
  'user',
  'id',
  'path',
  'file',
  'read',
  'write',
  'parse',
  'render',
  'update',
  'compute',
  'request',
  'response',
  'options',
  'config',
  'console',
  'log',
];

/** The SPM vocabulary: texts, scores (higher merges first) and token types. */
function vocabulary(
  fim: boolean,
  chat: boolean,
  favoured: string | undefined,
): { tokens: string[]; scores: number[]; types: number[]; fimIds?: TinyGguf['fimTokens']; chatIds?: TinyGguf['chatTokens']; favouredId?: number } {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const seen = new Set<string>();
  const add = (text: string, score: number, type: TokenType) => {
    if (seen.has(text)) return;
    seen.add(text);
    tokens.push(text);
    scores.push(score);
    types.push(type);
  };
  add('<unk>', 0, TokenType.unknown);
  add('<s>', 0, TokenType.control);
  add('</s>', 0, TokenType.control);
  for (let byte = 0; byte < 256; byte++) add(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`, 0, TokenType.byte);
  // Single characters: the symbols the SPM tokenizer starts from; a character that is not a
  // token falls back to its UTF-8 bytes (newline: <0x0A>, as in llama's own vocabulary).
  add('▁', -1, TokenType.normal);
  for (let code = 33; code < 127; code++) add(String.fromCharCode(code), -1, TokenType.normal);
  // Indentation runs, then '▁'-words with every prefix of them, so each word is reachable by
  // pairwise merges ('▁' + 'r' → '▁r', '▁r' + 'e' → '▁re', …); longer pieces score higher.
  for (const run of ['▁▁', '▁▁▁▁', '▁▁▁▁▁▁▁▁']) add(run, run.length / 4, TokenType.normal);
  for (const word of WORDS) {
    for (let end = 1; end <= word.length; end++) add('▁' + word.slice(0, end), end + 1, TokenType.normal);
  }
  for (const piece of ['()', '{}', '[]', '();', '=>', '==', '===', '!=', '&&', '||', '++', '//']) add(piece, piece.length, TokenType.normal);
  let fimIds: TinyGguf['fimTokens'];
  if (fim) {
    fimIds = { prefix: tokens.length, suffix: tokens.length + 1, middle: tokens.length + 2 };
    add('<|fim_prefix|>', 0, TokenType.control);
    add('<|fim_suffix|>', 0, TokenType.control);
    add('<|fim_middle|>', 0, TokenType.control);
  }
  let chatIds: TinyGguf['chatTokens'];
  if (chat) {
    chatIds = { start: tokens.length, end: tokens.length + 1 };
    add('<|im_start|>', 0, TokenType.control);
    add('<|im_end|>', 0, TokenType.control);
  }
  let favouredId: number | undefined;
  if (favoured !== undefined) {
    favouredId = tokens.length;
    add(favoured, 0, TokenType.control);
  }
  return { tokens, scores, types, fimIds, chatIds, favouredId };
}

interface TensorSpec {
  name: string;
  /** ne[0] first: the number of columns (a row's length), then the number of rows. */
  dims: number[];
  fill: 'ones' | { scale: number };
  /** Rows (ne[1] indexes) written as zeros. */
  zeroRows?: readonly number[];
  /** Overrides the first value of each row: `firstColumn(row)`, when it returns a number. */
  firstColumn?: (row: number) => number | undefined;
}

function tensorSpecs(nEmbd: number, nLayer: number, nFf: number, nVocab: number, zeroRows: readonly number[], favoured: number | undefined): TensorSpec[] {
  // Variance 1/fan_in keeps activations of order 1 through the layers.
  const linear = (fanIn: number) => ({ scale: Math.sqrt(3 / fanIn) });
  const specs: TensorSpec[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], fill: { scale: 1 }, ...(favoured !== undefined && { firstColumn: () => 100 }) },
    { name: 'output_norm.weight', dims: [nEmbd], fill: 'ones' },
    {
      name: 'output.weight',
      dims: [nEmbd, nVocab],
      fill: linear(nEmbd),
      zeroRows,
      ...(favoured !== undefined && { firstColumn: (row: number) => (row === favoured ? 1 : 0) }),
    },
  ];
  for (let layer = 0; layer < nLayer; layer++) {
    const blk = `blk.${layer}`;
    specs.push(
      { name: `${blk}.attn_norm.weight`, dims: [nEmbd], fill: 'ones' },
      { name: `${blk}.attn_q.weight`, dims: [nEmbd, nEmbd], fill: linear(nEmbd) },
      { name: `${blk}.attn_k.weight`, dims: [nEmbd, nEmbd], fill: linear(nEmbd) },
      { name: `${blk}.attn_v.weight`, dims: [nEmbd, nEmbd], fill: linear(nEmbd) },
      { name: `${blk}.attn_output.weight`, dims: [nEmbd, nEmbd], fill: linear(nEmbd) },
      { name: `${blk}.ffn_norm.weight`, dims: [nEmbd], fill: 'ones' },
      { name: `${blk}.ffn_gate.weight`, dims: [nEmbd, nFf], fill: linear(nEmbd) },
      { name: `${blk}.ffn_up.weight`, dims: [nEmbd, nFf], fill: linear(nEmbd) },
      { name: `${blk}.ffn_down.weight`, dims: [nFf, nEmbd], fill: linear(nFf) },
    );
  }
  return specs;
}

/** Writes a tiny random llama model to `file` (its folder must exist). */
export function writeTinyGguf(file: string, options: TinyGgufOptions = {}): TinyGguf {
  if (os.endianness() !== 'LE') throw new Error('tiny-gguf writes F32 data in the machine order, which must be little endian');
  const nEmbd = options.nEmbd ?? 64;
  const nLayer = options.nLayer ?? 2;
  const nHead = options.nHead ?? 4;
  const nFf = options.nFf ?? 4 * nEmbd;
  const contextLength = options.contextLength ?? 4096;
  if (nEmbd % nHead !== 0 || (nEmbd / nHead) % 2 !== 0) throw new Error(`nEmbd ${nEmbd} must split into ${nHead} heads of an even size`);
  const vocab = vocabulary(options.fim !== undefined && options.fim !== false, options.chatTemplate === 'chatml', options.favouredToken);

  const metadata: [string, MetadataValue][] = [
    ['general.architecture', str('llama')],
    ['general.name', str(options.name ?? 'tiny-random-llama')],
    ['general.alignment', u32(ALIGNMENT)],
    ['general.file_type', u32(0)], // all F32
    ['llama.vocab_size', u32(vocab.tokens.length)],
    ['llama.context_length', u32(contextLength)],
    ['llama.embedding_length', u32(nEmbd)],
    ['llama.block_count', u32(nLayer)],
    ['llama.feed_forward_length', u32(nFf)],
    ['llama.attention.head_count', u32(nHead)],
    ['llama.attention.head_count_kv', u32(nHead)],
    ['llama.rope.dimension_count', u32(nEmbd / nHead)],
    ['llama.rope.freq_base', f32(10000)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-5)],
    ['tokenizer.ggml.model', str('llama')],
    ['tokenizer.ggml.tokens', { type: ValueType.ARRAY, itemType: ValueType.STRING, value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: ValueType.ARRAY, itemType: ValueType.FLOAT32, value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: ValueType.ARRAY, itemType: ValueType.INT32, value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', u32(0)],
    ['tokenizer.ggml.bos_token_id', u32(1)],
    ['tokenizer.ggml.eos_token_id', u32(options.eosTokenId ?? 2)],
    ['tokenizer.ggml.add_bos_token', bool(true)],
    ['tokenizer.ggml.add_eos_token', bool(false)],
  ];
  if (vocab.chatIds) metadata.push(['tokenizer.ggml.eot_token_id', u32(vocab.chatIds.end)]);
  if (options.chatTemplate !== undefined) {
    metadata.push(['tokenizer.chat_template', str(options.chatTemplate === 'chatml' ? CHATML_TEMPLATE : options.chatTemplate)]);
  }
  if (vocab.fimIds && options.fim === 'fim') {
    metadata.push(
      ['tokenizer.ggml.fim_pre_token_id', u32(vocab.fimIds.prefix)],
      ['tokenizer.ggml.fim_suf_token_id', u32(vocab.fimIds.suffix)],
      ['tokenizer.ggml.fim_mid_token_id', u32(vocab.fimIds.middle)],
    );
  } else if (vocab.fimIds && options.fim === 'legacy') {
    metadata.push(
      ['tokenizer.ggml.prefix_token_id', u32(vocab.fimIds.prefix)],
      ['tokenizer.ggml.suffix_token_id', u32(vocab.fimIds.suffix)],
      ['tokenizer.ggml.middle_token_id', u32(vocab.fimIds.middle)],
    );
  }

  const controlTokens = vocab.types.flatMap((type, id) => (type === TokenType.control ? [id] : []));
  const tensors = tensorSpecs(nEmbd, nLayer, nFf, vocab.tokens.length, options.neverEnd ? controlTokens : [], vocab.favouredId);
  const header = new ByteWriter();
  header.u32(0x46554747); // "GGUF" read as a little-endian u32
  header.u32(3);
  header.u64(tensors.length);
  header.u64(metadata.length);
  for (const [key, value] of metadata) {
    header.string(key);
    writeValue(header, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    header.string(tensor.name);
    header.u32(tensor.dims.length);
    for (const dim of tensor.dims) header.u64(dim);
    header.u32(GGML_TYPE_F32);
    header.u64(offset);
    offsets.push(offset);
    const bytes = tensor.dims.reduce((product, dim) => product * dim, 4);
    offset += Math.ceil(bytes / ALIGNMENT) * ALIGNMENT;
  }
  header.padTo(ALIGNMENT);

  const random = seeded(options.seed ?? 1);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, header.bytes());
    let written = 0;
    for (const [index, tensor] of tensors.entries()) {
      const padding = offsets[index]! - written;
      if (padding > 0) fs.writeSync(fd, Buffer.alloc(padding));
      const count = tensor.dims.reduce((product, dim) => product * dim, 1);
      const data = new Float32Array(count);
      if (tensor.fill === 'ones') data.fill(1);
      else for (let i = 0; i < count; i++) data[i] = (random() * 2 - 1) * tensor.fill.scale;
      for (const row of tensor.zeroRows ?? []) data.fill(0, row * tensor.dims[0]!, (row + 1) * tensor.dims[0]!);
      if (tensor.firstColumn) {
        const rows = count / tensor.dims[0]!;
        for (let row = 0; row < rows; row++) {
          const value = tensor.firstColumn(row);
          if (value !== undefined) data[row * tensor.dims[0]!] = value;
        }
      }
      fs.writeSync(fd, new Uint8Array(data.buffer));
      written = offsets[index]! + count * 4;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, vocabulary: vocab.tokens, fimTokens: vocab.fimIds, chatTokens: vocab.chatIds, favouredToken: vocab.favouredId, bytes: fs.statSync(file).size };
}

/** A fresh temporary folder; `remove()` deletes it and what it holds. */
export function tempModelDir(prefix = 'loom-gguf-'): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes a file that is not a GGUF model, for error tests:
 * - `'text'`: plain text (wrong magic);
 * - `'truncated'`: a real GGUF header cut off in the middle of its metadata;
 * - `'empty'`: zero bytes.
 */
export function writeNotGguf(file: string, kind: 'text' | 'truncated' | 'empty' = 'text'): string {
  if (kind === 'empty') fs.writeFileSync(file, '');
  else if (kind === 'text') fs.writeFileSync(file, 'This is not a model, just some text pretending to be one.\n'.repeat(20));
  else {
    const scratch = `${file}.full`;
    writeTinyGguf(scratch, { nEmbd: 16, nLayer: 1, nHead: 2 });
    const bytes = fs.readFileSync(scratch);
    fs.rmSync(scratch);
    fs.writeFileSync(file, bytes.subarray(0, 600));
  }
  return file;
}
