// The language of each CodeLanguage.
import type { CodeLanguage } from '../../../core/code/model.ts';
import { bash } from './bash.ts';
import { c, cpp } from './c.ts';
import { csharp } from './csharp.ts';
import { go } from './go.ts';
import { java } from './java.ts';
import { javascript, tsx, typescript } from './javascript.ts';
import { php } from './php.ts';
import { python } from './python.ts';
import { ruby } from './ruby.ts';
import { rust } from './rust.ts';
import type { LanguageSpec } from './spec.ts';

export type { LanguageSpec } from './spec.ts';

export const LANGUAGE_SPECS: Record<CodeLanguage, LanguageSpec> = { typescript, tsx, javascript, python, go, rust, java, c, cpp, csharp, ruby, php, bash };
