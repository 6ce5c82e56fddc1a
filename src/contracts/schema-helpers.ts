import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/** A string restricted to a fixed set of values, emitted as `{type: "string", enum: [...]}`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Text without NUL characters: PostgreSQL cannot store them, and no human text needs them. */
export function Text(options: { minLength?: number; maxLength?: number; description?: string } = {}) {
  return Type.String({ pattern: '^[^\\u0000]*$', ...options });
}

/** Whether a body schema is an object none of whose fields is required (such a body may be left out). */
export function allFieldsOptional(schema: unknown): boolean {
  const object = schema as { type?: unknown; required?: unknown[] } | null;
  return object?.type === 'object' && !(Array.isArray(object.required) && object.required.length > 0);
}

type StaticOf<S> = S extends TSchema ? Static<S> : undefined;

/** What a handler receives for a request of this shape: validated input, never a framework object. */
export interface ValidatedInput<Request extends { params?: TSchema; query?: TSchema; body?: TSchema }> {
  params: StaticOf<Request['params']>;
  query: StaticOf<Request['query']>;
  body: StaticOf<Request['body']>;
}

export type { TSchema };

/**
 * A schema as plain JSON Schema: a deep JSON copy without `$id`s, which would clash where
 * schemas are inlined side by side (OpenAPI, MCP tool listings).
 */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}
