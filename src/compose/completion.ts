// Builds a server's completion providers and engine from its settings: builtin always, gguf
// and openai when configured. The servers (`loom hosted`, `loom serve`) and `loom complete`
// all build theirs here, so each offers the same providers from the same settings.
import { CompletionEngine } from '../core/completion/engine.ts';
import type { CompletionConfig } from '../core/completion/config.ts';
import type { CompletionProvider } from '../core/completion/provider.ts';
import { ProviderSet } from '../core/completion/providers.ts';
import { OpenAiProvider } from '../core/models/openai.ts';
import { ResolvingGgufProvider, type ModelLookup } from '../core/models/resolving-gguf.ts';

export interface CompletionSetup extends ModelLookup {
  /** The builtin provider (its model trained by the caller: workspace or corpus). */
  builtin: CompletionProvider;
}

/**
 * The providers the settings ask for; `configure()` on the result applies new settings.
 *
 * @example
 * const providers = createProviderSet({ builtin: new BuiltinProvider(new BuiltinModel()), catalog, modelsDir }, config.completion);
 * providers.select('openai'); // the provider a request names, or the default one
 */
export function createProviderSet(setup: CompletionSetup, config: CompletionConfig): ProviderSet {
  return new ProviderSet(
    setup.builtin,
    {
      gguf: (settings) => new ResolvingGgufProvider(settings, setup),
      openai: (settings) => new OpenAiProvider(settings),
    },
    config,
  );
}

/**
 * A completion engine over the providers the settings ask for; its limits follow `config()`
 * (the desktop app's settings change them live). Close it to free the models it loaded.
 *
 * @example
 * const engine = createCompletionEngine({ builtin: new BuiltinProvider(model), catalog: loadCatalog(), modelsDir }, () => config.completion);
 * const { completion } = await engine.complete({ prefix: 'const total = ', suffix: '', language: 'typescript', caller: 'cli' });
 * await engine.close();
 */
export function createCompletionEngine(setup: CompletionSetup, config: () => CompletionConfig): CompletionEngine {
  const providers = createProviderSet(setup, config());
  return new CompletionEngine(providers, () => config());
}
