// A setting's JSON schema, derived from its entry in the config schema (settings.ts), for files
// that carry settings of their own (the desktop app's settings.json): one place says what a
// setting accepts.
import { Type, type TSchema } from 'typebox';
import { SETTINGS, type SettingKey, type SettingSpec } from './settings.ts';

/** Strings take their length limits from the caller (the config schema has none for them). */
export function settingSchema(key: SettingKey, stringLimits: { minLength?: number; maxLength: number } = { maxLength: 4096 }): TSchema {
  const spec = (SETTINGS as readonly SettingSpec[]).find((s) => s.key === key)!;
  const kind = spec.kind;
  switch (kind.type) {
    case 'integer':
      return Type.Integer({ minimum: kind.min, maximum: kind.max });
    case 'enum':
      return Type.Union(kind.values.map((value) => Type.Literal(value)));
    case 'url':
      return Type.String({ pattern: `^(${kind.protocols.map((p) => p.replace(/:$/, '')).join('|')})://`, ...stringLimits });
    case 'string':
      return Type.String(stringLimits);
    case 'trustProxy':
      throw new Error(`${key} has no JSON schema`);
  }
}
