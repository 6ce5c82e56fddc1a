// Values from a JSON Schema, for the fuzz of both APIs: ones the schema accepts (at and inside
// its bounds, with unicode edge cases) and ones it refuses (wrong types, missing and unknown
// fields, one past a bound, broken patterns and enums). The schemas are the servers' own (the
// OpenAPI document, the local routes), so a new field or route is covered without a change here.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  examples?: unknown[];
}

/** Strings that mean something to a server, by property name (paths, refs, asset keys…). */
export type Hints = Record<string, fc.Arbitrary<string>>;

/** Lengths past which a string is generated only as one repeated character (kept cheap). */
const CHEAP_LENGTH = 200_000;

/** Text that tends to break things: control and format characters, surrogates, RTL, emoji. */
export const awkwardText = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\t',
  '\u001b[31mred\u001b[0m',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\ufeff',
  '\u202eevil\u202c',
  '\u200b\u200d',
  'e\u0301\u0301\u0301',
  '👩🏽‍💻🧵',
  '𝕃𝕠𝕠𝕞',
  'İı',
  'Ω≈ç√',
  '%00',
  '%2e%2e%2f',
  '../',
  '..\\..\\',
  '${jndi:ldap://x}',
  "'; drop table feedback; --",
  '<script>alert(1)</script>',
  '{"a":1}',
  'null',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
);

const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: awkwardText },
  { weight: 1, arbitrary: fc.tuple(awkwardText, fc.string({ maxLength: 10 }), awkwardText).map((parts) => parts.join('')) },
);

function typesOf(schema: JsonSchema): string[] {
  if (schema.type) return [schema.type].flat();
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  if (schema.const !== undefined) return [typeof schema.const];
  if (schema.enum) return [...new Set(schema.enum.map((value) => typeof value))];
  return [];
}

function fitsLength(schema: JsonSchema, text: string): boolean {
  const length = [...text].length;
  return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity);
}

/** A string of exactly `length` characters that any pattern-free string schema takes. */
function filler(length: number, char = 'x'): string {
  return char.repeat(length);
}

function validString(schema: JsonSchema, hint?: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (schema.const !== undefined) return fc.constant(String(schema.const));
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  const options: fc.Arbitrary<string>[] = [];
  const fits = (text: string) => fitsLength(schema, text) && (!schema.pattern || new RegExp(schema.pattern, 'u').test(text));
  if (hint) options.push(hint.filter(fits), hint.filter(fits));
  if (schema.examples?.length) options.push(fc.constantFrom(...schema.examples.map(String)).filter(fits));
  if (schema.format === 'email') {
    options.push(fc.emailAddress().filter(fits), fc.constantFrom('a@b.co', 'zoë@exämple.com', 'x+tag@example.com').filter(fits));
  } else if (schema.pattern && !/^\^\[\^\\u0000\]\*\$$/.test(schema.pattern)) {
    options.push(fc.stringMatching(new RegExp(schema.pattern)).filter(fits));
  } else {
    const plain = anyString.map((text) => (schema.pattern ? text.replaceAll('\u0000', '') : text)).filter(fits);
    options.push(plain, plain, plain, plain, plain, plain);
    // The bounds themselves: the shortest and the longest string the schema takes (or a long
    // one, when the longest would be megabytes).
    const longest = schema.maxLength;
    if (longest !== undefined && longest <= CHEAP_LENGTH) options.push(fc.constant(filler(longest)));
    if (longest !== undefined && longest > CHEAP_LENGTH) options.push(fc.constant(filler(CHEAP_LENGTH, 'é')));
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant(filler(schema.minLength!)));
  }
  return fc.oneof(...options);
}

function validNumber(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (integer ? -(2 ** 31) : -1e9);
  const max = schema.maximum ?? (integer ? 2 ** 31 : 1e9);
  const inside = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(inside, fc.constantFrom(min, max), fc.constant(Math.min(max, Math.max(min, 1))));
}

/** Values the schema accepts. `name` is the property the value is for (it picks a hint). */
export function validValue(schema: JsonSchema, hints: Hints = {}, name?: string): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => validValue(option, hints, name)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const [type] = typesOf(schema);
  switch (type) {
    case 'string':
      return validString(schema, name ? hints[name] : undefined);
    case 'integer':
      return validNumber(schema, true);
    case 'number':
      return validNumber(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.max(min, Math.min(schema.maxItems ?? 4, 4));
      return fc.array(validValue(schema.items ?? {}, hints, name), { minLength: min, maxLength: max });
    }
    case 'object':
      return validObject(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validObject(schema: JsonSchema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const model = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, validValue(property, hints, key)]));
  return fc.record(model, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** JSON values of every type but `types`. */
function otherTypes(types: string[]): fc.Arbitrary<unknown> {
  const all: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.constantFrom('', '1', 'true', 'x')],
    ['number', fc.constantFrom(0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 2)],
    ['integer', fc.constantFrom(0, 7)],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['object', fc.constantFrom({}, { a: 1 })],
    ['array', fc.constantFrom([], [1], ['x'])],
  ];
  const numeric = types.includes('number') || types.includes('integer');
  const wrong = all.filter(([type]) => !types.includes(type) && !(numeric && (type === 'number' || type === 'integer')));
  return fc.oneof(...wrong.map(([, arbitrary]) => arbitrary));
}

/** Values the schema refuses, or undefined when it accepts everything. */
export function invalidValue(schema: JsonSchema, hints: Hints = {}): fc.Arbitrary<unknown> | undefined {
  const options: fc.Arbitrary<unknown>[] = [];
  const types = typesOf(schema);
  if (schema.anyOf) {
    // Each option's type is the same here (unions of literals); a value none of them is.
    options.push(fc.constantFrom('not-one-of-them', 'PENDING', ''));
    return fc.oneof(...options);
  }
  if (types.length) options.push(otherTypes(types));
  if (schema.enum || schema.const !== undefined) {
    const values = (schema.enum ?? [schema.const]).map(String);
    options.push(
      fc
        .constantFrom(...values)
        .chain((value) => fc.constantFrom(value.toUpperCase(), ` ${value}`, `${value}\u0000`, `${value}x`, value.replace(/./, 'İ')))
        .filter((value) => !values.includes(value)),
    );
  } else if (types.includes('string')) {
    if (schema.maxLength !== undefined && schema.maxLength < CHEAP_LENGTH) options.push(fc.constant(filler(schema.maxLength + 1)));
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant(filler(schema.minLength! - 1)));
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern, 'u');
      options.push(fc.constantFrom('\u0000', 'a\u0000', ' ', 'a b', '/', '-', '\ud800', '€').filter((text) => !pattern.test(text)));
    }
    if (schema.format === 'email') options.push(fc.constantFrom('not-an-email', '@', 'a@', 'a@b', 'a b@c.d'));
  } else if (types.includes('integer') || types.includes('number')) {
    if (schema.minimum !== undefined) options.push(fc.constantFrom(schema.minimum - 1, schema.minimum - 0.5, -1e308));
    if (schema.maximum !== undefined) options.push(fc.constantFrom(schema.maximum + 1, 1e308));
    if (types.includes('integer')) options.push(fc.constantFrom(1.5, 0.1));
  } else if (types.includes('array')) {
    if ((schema.minItems ?? 0) > 0) options.push(fc.constant([]));
    const item = schema.items && invalidValue(schema.items, hints);
    if (item) options.push(fc.array(item, { minLength: 1, maxLength: 3 }));
  } else if (types.includes('object')) {
    const valid = validObject(schema, hints);
    for (const key of schema.required ?? []) {
      options.push(valid.map((value) => omit(value, key)));
    }
    if (schema.additionalProperties === false) {
      options.push(
        valid.chain((value) =>
          fc
            .constantFrom('extra', 'Path', 'path ', '', '\u0000')
            .filter((key) => !(key in (schema.properties ?? {})))
            .map((key) => ({ ...value, [key]: 1 })),
        ),
      );
    }
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const wrong = invalidValue(property, hints);
      if (wrong) options.push(fc.tuple(valid, wrong).map(([value, bad]) => ({ ...value, [key]: bad })));
    }
  }
  return options.length ? fc.oneof(...options) : undefined;
}

function omit(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}
