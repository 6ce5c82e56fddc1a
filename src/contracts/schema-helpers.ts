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
