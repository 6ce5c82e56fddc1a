// The completion settings in force in the desktop app: the configuration (flags, environment,
// config file) overridden by settings.json's `completion`, which can change while Loom runs.
import type { CompletionConfig } from '../core/completion/config.ts';
import type { CompletionSettings } from './settings.ts';

export function effectiveCompletion(base: CompletionConfig, override: CompletionSettings | undefined): CompletionConfig {
  if (!override) return base;
  const { gguf, openai, ...scalars } = override;
  return {
    ...base,
    ...scalars,
    gguf: gguf ? { gpu: base.gguf?.gpu ?? 'auto', contextSize: base.gguf?.contextSize ?? 4096, ...gguf } : base.gguf,
    openai: openai ? { fim: 'auto', ...openai, baseUrl: openai.baseUrl.replace(/\/+$/, '') } : base.openai,
  };
}
