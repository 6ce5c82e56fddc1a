// Builds a server's completion providers and engine from its settings: builtin always, gguf
// and openai when configured. The servers (`loom hosted`, `loom serve`) and `loom complete`
// all build theirs here, so each offers the same providers from the same settings.
import { CompletionEngine } from '../core/completion/engine.ts';
import { registerPrivateFolder } from '../core/files/private-folders.ts';
import type { ChatRequest } from '../core/completion/chat.ts';
import type { CompletionConfig } from '../core/completion/config.ts';
import type { CompletionProvider } from '../core/completion/provider.ts';
import type { CrossFileContext } from '../core/completion/cross-file.ts';
import { ProviderSet } from '../core/completion/providers.ts';
import { LoomError } from '../core/errors.ts';
import { OpenAiProvider } from '../adapters/models/openai.ts';
import { ResolvingGgufProvider, type ModelLookup } from '../adapters/models/resolving-gguf.ts';

export interface CompletionSetup extends ModelLookup {
  /** The builtin provider (its model trained by the caller: workspace or corpus). */
  builtin: CompletionProvider;
  /**
   * Adds to a hint where the settings it names are set for this process (config/setting-places.ts
   * explainSettings): the providers' refusals and the engine's then say which file and key, and
   * which environment variable.
   */
  explain?: (hint: string) => string;
  /**
   * The definitions from other files the model providers see before the prefix (the local
   * server's, over its code index: crossFileContext in code-intel.ts). The hosted API has no
   * workspace index and goes without.
   */
  crossFile?: CrossFileContext;
}

/**
 * The providers the settings ask for; `configure()` on the result applies new settings.
 *
 * @example
 * const providers = createProviderSet({ builtin: new BuiltinProvider(new BuiltinModel()), catalog, modelsDir }, config.completion);
 * providers.select('openai'); // the provider a request names, or the default one
 */
export function createProviderSet(setup: CompletionSetup, config: CompletionConfig): ProviderSet {
  // A model that cannot be loaded is named in errors by its file's path.
  registerPrivateFolder(setup.modelsDir, '<models dir>');
  const explain = setup.explain ?? ((hint: string) => hint);
  return new ProviderSet(
    setup.builtin,
    {
      gguf: (settings) => explainingRefusals(new ResolvingGgufProvider(settings, setup), explain),
      openai: (settings) => explainingRefusals(new OpenAiProvider(settings), explain),
    },
    config,
    explain,
  );
}

/**
 * `provider`, whose refusals (a LoomError with a hint: a model file that does not exist, a GPU
 * that is not there, a server that does not answer) say where the settings their hint names
 * are set.
 */
function explainingRefusals(provider: CompletionProvider, explain: (hint: string) => string): CompletionProvider {
  const explained = (error: unknown): never => {
    if (error instanceof LoomError && error.constructor === LoomError && error.hint) {
      const hint = explain(error.hint);
      if (hint !== error.hint) throw new LoomError(error.code, error.message, hint);
    }
    throw error;
  };
  const chat = provider.chat?.bind(provider);
  return {
    get kind() {
      return provider.kind;
    },
    get name() {
      return provider.name;
    },
    get capabilities() {
      return provider.capabilities;
    },
    get contextBudget() {
      return provider.contextBudget;
    },
    complete: (request) => provider.complete(request).catch(explained),
    ...(chat ? { chat: (request: ChatRequest) => chat(request).catch(explained) } : {}),
    close: () => provider.close(),
  };
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
  return new CompletionEngine(providers, () => config(), setup.crossFile);
}
