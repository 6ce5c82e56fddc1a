// Builds the providers of a server from its settings: builtin always, gguf and openai when
// configured. Shared by `loom hosted`, `loom serve` and `loom complete`.
import path from 'node:path';
import type { CompletionConfig } from '../../config/load.ts';
import type { Catalog } from '../catalog/schema.ts';
import { GgufProvider } from '../models/gguf.ts';
import { findCatalogModel, resolveGgufModel } from '../models/library.ts';
import { OpenAiProvider } from '../models/openai.ts';
import { CompletionEngine } from './engine.ts';
import type { ChatRequest } from './chat.ts';
import type { CompletionProvider, ProviderRequest } from './provider.ts';
import { ProviderSet } from './providers.ts';

export interface CompletionSetup {
  /** The builtin provider (its model trained by the caller: workspace or corpus). */
  builtin: CompletionProvider;
  catalog: Pick<Catalog, 'models'>;
  modelsDir: string;
}

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

/** An engine whose limits follow `config()` (the desktop app's settings change them live). */
export function createCompletionEngine(setup: CompletionSetup, config: () => CompletionConfig): CompletionEngine {
  const providers = createProviderSet(setup, config());
  return new CompletionEngine(providers, () => config());
}

/**
 * A gguf provider whose setting may name a catalog model not installed yet: the file is
 * resolved on each request until it resolves (so `loom models pull` while the server runs is
 * enough), and every failure is the resolver's clear model_unavailable.
 */
class ResolvingGgufProvider implements CompletionProvider {
  readonly kind = 'gguf' as const;
  readonly name: string;
  private loaded?: GgufProvider;

  constructor(
    private readonly settings: NonNullable<CompletionConfig['gguf']>,
    private readonly setup: CompletionSetup,
  ) {
    const value = settings.model.trim();
    this.name = findCatalogModel(setup.catalog.models, value)?.name ?? path.basename(value).replace(/\.gguf$/i, '');
  }

  get capabilities() {
    return this.loaded?.capabilities ?? { fim: true, chat: false, tools: false };
  }

  async complete(request: ProviderRequest) {
    return this.provider().complete(request);
  }

  async chat(request: ChatRequest) {
    request.signal.throwIfAborted();
    return this.provider().chat(request);
  }

  private provider(): GgufProvider {
    if (!this.loaded) {
      const { file } = resolveGgufModel(this.settings.model, this.setup.catalog, this.setup.modelsDir);
      this.loaded = new GgufProvider({ file, name: this.name, gpu: this.settings.gpu, contextSize: this.settings.contextSize });
    }
    return this.loaded;
  }

  async close(): Promise<void> {
    await this.loaded?.close();
  }
}
