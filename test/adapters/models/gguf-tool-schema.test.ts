// Tools' JSON Schemas as the grammar schemas node-llama-cpp constrains function calls with:
// what is kept, what is loosened (never tightened), optional properties written as null and
// removed afterwards; and the grammar itself on a random-weight model, which can only write
// JSON that fits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getLlama, LlamaCompletion, LlamaLogLevel, type Llama, type LlamaModel } from 'node-llama-cpp';
import { toGbnfSchema, withoutUnsetOptionals } from '../../../src/adapters/models/gguf/tool-schema.ts';
import { tempModelDir, writeTinyGguf } from '../../support/tiny-gguf.ts';

const ANY = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };

describe('tool schemas as grammar schemas', () => {
  it('keeps required properties and lets optional ones be null', () => {
    assert.deepEqual(
      toGbnfSchema({
        type: 'object',
        description: 'Arguments.',
        properties: { path: { type: 'string', description: 'A file.' }, line: { type: 'integer', minimum: 1 } },
        required: ['path'],
        additionalProperties: false,
      }),
      {
        type: 'object',
        description: 'Arguments.',
        properties: { path: { type: 'string', description: 'A file.' }, line: { oneOf: [{ type: 'integer' }, { type: 'null' }] } },
      },
    );
  });

  it('loosens what the grammar cannot say', () => {
    assert.deepEqual(
      toGbnfSchema({
        type: 'object',
        properties: { when: { type: 'string', format: 'email', pattern: '^x' }, at: { type: 'string', format: 'date-time' } },
        required: ['when', 'at'],
      }),
      {
        type: 'object',
        properties: { when: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      },
    );
    // Untyped and boolean schemas: any JSON value; an object without properties: any keys.
    assert.deepEqual(toGbnfSchema({ type: 'object', properties: { value: {}, flag: true }, required: ['value', 'flag'] }), {
      type: 'object',
      properties: { value: ANY, flag: ANY },
    });
    assert.deepEqual(toGbnfSchema({ type: 'object' }), { type: 'object', additionalProperties: true });
    assert.deepEqual(toGbnfSchema({ type: 'object', additionalProperties: { type: 'number' } }), { type: 'object', additionalProperties: { type: 'number' } });
    // An enum of objects cannot be a grammar literal.
    assert.deepEqual(toGbnfSchema({ type: 'object', properties: { x: { enum: [{ a: 1 }] } }, required: ['x'] }), { type: 'object', properties: { x: ANY } });
  });

  it('turns anyOf, type lists, nullable, allOf, tuples and references into what the grammar knows', () => {
    const schema = toGbnfSchema({
      type: 'object',
      properties: {
        target: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        either: { type: ['string', 'null'] },
        mixed: { type: ['array', 'string'], items: { type: 'boolean' } },
        maybe: { type: 'integer', nullable: true },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'number' } }, required: ['b'] },
          ],
        },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, maxItems: 1 },
        edit: { $ref: '#/definitions/Edit' },
      },
      required: ['target', 'either', 'mixed', 'maybe', 'both', 'pair', 'edit'],
      definitions: { Edit: { type: 'object', properties: { search: { type: 'string' }, replace: { type: 'string' } }, required: ['search', 'replace'] } },
    });
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        target: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        either: { type: ['string', 'null'] },
        mixed: { oneOf: [{ type: 'array', items: { type: 'boolean' } }, { type: 'string' }] },
        maybe: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
        both: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], maxItems: 2 },
        edit: { $ref: '#/$defs/Edit' },
      },
      $defs: { Edit: { type: 'object', properties: { search: { type: 'string' }, replace: { type: 'string' } } } },
    });
  });

  it('removes the optional properties a call set to null, and nothing else', () => {
    const parameters = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        range: { type: ['object', 'null'], properties: { from: { type: 'integer' }, to: { type: 'integer' } }, required: ['from'] },
        edits: { type: 'array', items: { $ref: '#/$defs/Edit' } },
        keep: { type: ['string', 'null'] },
      },
      required: ['path', 'keep'],
      $defs: { Edit: { type: 'object', properties: { search: { type: 'string' }, note: { type: 'string' } }, required: ['search'] } },
    };
    assert.deepEqual(
      withoutUnsetOptionals(
        {
          path: 'a.ts',
          range: { from: 1, to: null },
          edits: [
            { search: 'x', note: null },
            { search: 'y', note: 'n' },
          ],
          keep: null,
        },
        parameters,
      ),
      { path: 'a.ts', range: { from: 1 }, edits: [{ search: 'x' }, { search: 'y', note: 'n' }], keep: null },
    );
    assert.deepEqual(withoutUnsetOptionals({ path: 'a.ts', range: null, keep: 'k' }, parameters), { path: 'a.ts', keep: 'k' });
  });
});

describe('tool grammars on a random-weight model', () => {
  const { dir, remove } = tempModelDir();
  let llama: Llama;
  let model: LlamaModel;
  before(async () => {
    const tiny = writeTinyGguf(`${dir}/grammar.gguf`, { seed: 3 });
    llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: tiny.file });
  });
  after(async () => {
    await model.dispose();
    await llama.dispose();
    remove();
  });

  it('lets the model write only arguments that fit the tool schema', { timeout: 60_000 }, async () => {
    const parameters = {
      type: 'object',
      properties: {
        mode: { enum: ['insert', 'normal'] },
        count: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string', maxLength: 4 }, maxItems: 2 },
        note: { type: 'string', maxLength: 6 },
      },
      required: ['mode', 'count'],
    };
    const context = await model.createContext({ contextSize: 512, threads: 1 });
    try {
      const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
      const grammar = await llama.createGrammarForJsonSchema(toGbnfSchema(parameters) as never);
      for (const prompt of ['{"mode":', 'const x = ', 'def f():']) {
        const text = await completion.generateCompletion(prompt, { grammar, maxTokens: 200 });
        const args = withoutUnsetOptionals(JSON.parse(text), parameters) as Record<string, unknown>;
        assert.ok(['insert', 'normal'].includes(args.mode as string), text);
        // A number, not always an integer: node-llama-cpp's grammar lets one have an exponent
        // (2E91 parses as a float, 1e-5 is no integer). The loop validates values (docs/models.md).
        assert.equal(typeof args.count, 'number', text);
        if ('tags' in args)
          assert.ok(Array.isArray(args.tags) && args.tags.length <= 2 && args.tags.every((tag) => typeof tag === 'string' && tag.length <= 4), text);
        if ('note' in args) assert.ok(typeof args.note === 'string' && args.note.length <= 6, text);
        assert.deepEqual(
          Object.keys(args).filter((key) => !['mode', 'count', 'tags', 'note'].includes(key)),
          [],
        );
      }
    } finally {
      await context.dispose();
    }
  });
});
