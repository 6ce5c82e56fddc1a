import { Type, type TSchema, type TUnsafe } from 'typebox';

/** A string restricted to a fixed set of values, emitted as `{type: "string", enum: [...]}`. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Text without NUL characters: PostgreSQL cannot store them, and no human text needs them. */
export function Text(options: { minLength?: number; maxLength?: number; description?: string } = {}) {
  return Type.String({ pattern: '^[^\\u0000]*$', ...options });
}

export type { TSchema };

/**
 * A schema as plain JSON Schema: a deep JSON copy without `$id`s, which would clash where
 * schemas are inlined side by side (OpenAPI, MCP tool listings).
 */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}
