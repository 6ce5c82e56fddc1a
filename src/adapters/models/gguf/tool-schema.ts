// A tool's JSON Schema as the schema node-llama-cpp builds a function call's grammar from
// (GbnfJsonSchema, a subset). The grammar lets a model write only JSON that fits, so a small
// local model cannot make a malformed call; what the subset cannot say is loosened, never
// tightened, so no valid call is ever impossible:
// - every property of an object is always written (the grammar has no optional keys): an
//   optional one may be written as null, and `withoutUnsetOptionals` removes it afterwards;
// - an object's properties are the declared ones (additionalProperties is taken as false when
//   the object declares properties, unless it is a schema); without properties, any;
// - anyOf is oneOf; allOf of objects merges them; $ref to #/$defs/… or #/definitions/…
//   stays a reference; string formats other than date, time and date-time, patterns, `not`
//   and conditionals are dropped (any string, any value).
import type { GbnfJsonSchema } from 'node-llama-cpp';
import type { JsonSchema } from '../../../core/completion/chat.ts';

type Schema = Record<string, unknown>;

const BASIC = ['string', 'number', 'integer', 'boolean', 'null'] as const;
const FORMATS = new Set(['date', 'time', 'date-time']);
const ANY: Schema = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };

/** The grammar schema of a tool's parameters (an object schema). */
export function toGbnfSchema(parameters: JsonSchema): GbnfJsonSchema {
  const defs = definitionsOf(parameters);
  const root = convert(parameters, 0);
  if (Object.keys(defs).length > 0 && root.type === 'object') {
    root.$defs = Object.fromEntries(Object.entries(defs).map(([name, schema]) => [name, convert(schema, 0)]));
  }
  return root as GbnfJsonSchema;
}

/**
 * The arguments a grammar-made call wrote, without the optional properties it set to null
 * (the grammar had to write them): what the tool would have been sent by a model that could
 * leave them out.
 */
export function withoutUnsetOptionals(value: unknown, parameters: JsonSchema): unknown {
  return prune(value, parameters, definitionsOf(parameters), 0);
}

/** Deeper than this a schema is taken as any JSON (a grammar has to end). */
const MAX_DEPTH = 32;

function convert(input: unknown, depth: number): Schema {
  if (depth > MAX_DEPTH || input === true || input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) return { ...ANY };
  const schema = input as Schema;
  const description = typeof schema.description === 'string' ? { description: schema.description } : {};
  const withNull = (converted: Schema): Schema => (schema.nullable === true ? { oneOf: [converted, { type: 'null' }], ...description } : converted);

  if (typeof schema.$ref === 'string') {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1];
    return withNull(name === undefined ? { ...ANY } : { $ref: `#/$defs/${name}`, ...description });
  }
  if ('const' in schema && isLiteral(schema.const)) return withNull({ const: schema.const, ...description });
  if (Array.isArray(schema.enum)) {
    return withNull(schema.enum.every(isLiteral) && schema.enum.length > 0 ? { enum: schema.enum, ...description } : { ...ANY });
  }
  const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as unknown[] | undefined;
  if (alternatives && alternatives.length > 0) return withNull({ oneOf: alternatives.map((alternative) => convert(alternative, depth + 1)), ...description });
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return withNull(convert(mergeAll(schema), depth + 1));

  let type = schema.type;
  if (type === undefined)
    type = schema.properties !== undefined ? 'object' : schema.items !== undefined || schema.prefixItems !== undefined ? 'array' : undefined;
  if (type === undefined) return { ...ANY, ...description };
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    if (types.length === 0) return { ...ANY, ...description };
    if (types.every((t) => (BASIC as readonly string[]).includes(t))) return withNull({ type: types, ...description });
    return withNull({ oneOf: types.map((t) => convert({ ...schema, type: t, description: undefined }, depth + 1)), ...description });
  }
  switch (type) {
    case 'object':
      return withNull({ ...objectSchema(schema, depth), ...description });
    case 'array':
      return withNull({ ...arraySchema(schema, depth), ...description });
    case 'string': {
      const out: Schema = { type: 'string', ...description };
      if (typeof schema.format === 'string' && FORMATS.has(schema.format)) out.format = schema.format;
      else {
        if (isCount(schema.minLength)) out.minLength = schema.minLength;
        if (isCount(schema.maxLength)) out.maxLength = schema.maxLength;
      }
      return withNull(out);
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return withNull({ type, ...description });
    default:
      return { ...ANY, ...description };
  }
}

function objectSchema(schema: Schema, depth: number): Schema {
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, unknown>) : undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : []);
  const out: Schema = { type: 'object' };
  if (properties && Object.keys(properties).length > 0) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([key, property]) => {
        const converted = convert(property, depth + 1);
        // Optional: the grammar writes every key, so this one may be null (removed afterwards).
        return [key, required.has(key) ? converted : { oneOf: [converted, { type: 'null' }] }];
      }),
    );
    if (isObject(schema.additionalProperties)) out.additionalProperties = convert(schema.additionalProperties, depth + 1);
  } else {
    out.additionalProperties =
      schema.additionalProperties === false ? false : isObject(schema.additionalProperties) ? convert(schema.additionalProperties, depth + 1) : true;
  }
  if (isCount(schema.minProperties) && out.additionalProperties !== undefined && out.additionalProperties !== false) out.minProperties = schema.minProperties;
  if (isCount(schema.maxProperties) && out.additionalProperties !== undefined && out.additionalProperties !== false) out.maxProperties = schema.maxProperties;
  return out;
}

function arraySchema(schema: Schema, depth: number): Schema {
  const out: Schema = { type: 'array' };
  // Draft 4-2019 tuples are `items: [...]`; 2020-12 says `prefixItems` and `items` for the rest.
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (prefix) out.prefixItems = prefix.map((item) => convert(item, depth + 1));
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  if (rest !== undefined && rest !== false) out.items = convert(rest, depth + 1);
  if (isCount(schema.minItems)) out.minItems = schema.minItems;
  // A tuple's length is at least its prefix (node-llama-cpp would warn and say so itself).
  if (isCount(schema.maxItems)) out.maxItems = Math.max(schema.maxItems, prefix?.length ?? 0);
  if (prefix && rest === false) out.maxItems = prefix.length;
  return out;
}

/** allOf: objects merged (properties and required of all); anything else is taken as the first part. */
function mergeAll(schema: Schema): Schema {
  const parts = [schema, ...(schema.allOf as unknown[])].filter(isObject) as Schema[];
  const { allOf: _allOf, ...base } = schema;
  const objects = parts.every((part) => part === schema || part.type === 'object' || part.properties !== undefined);
  if (!objects) return { ...base, ...(parts[1] ?? {}) };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts) {
    if (isObject(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required)) required.push(...part.required.filter((key): key is string => typeof key === 'string'));
  }
  return { ...base, type: 'object', properties, required };
}

function prune(value: unknown, input: unknown, defs: Record<string, unknown>, depth: number): unknown {
  if (depth > MAX_DEPTH || !isObject(input)) return value;
  let schema = input as Schema;
  if (typeof schema.$ref === 'string') {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1];
    if (name === undefined || !isObject(defs[name])) return value;
    schema = defs[name] as Schema;
  }
  if (Array.isArray(schema.allOf)) schema = mergeAll(schema);
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    return value.map((item, index) => prune(item, index < prefix.length ? prefix[index] : rest, defs, depth + 1));
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === null && key in properties && !required.has(key)) continue;
    out[key] = key in properties ? prune(item, properties[key], defs, depth + 1) : item;
  }
  return out;
}

function definitionsOf(schema: JsonSchema): Record<string, unknown> {
  return {
    ...(isObject(schema.definitions) ? (schema.definitions as Record<string, unknown>) : {}),
    ...(isObject(schema.$defs) ? (schema.$defs as Record<string, unknown>) : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isLiteral(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
