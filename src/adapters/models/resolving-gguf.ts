// A gguf provider whose `gguf.model` setting may name a catalog model that is not installed
// yet: the file is resolved on each request until it resolves, so `loom models pull` while the
// server runs is enough, and every failure is the resolver's clear model_unavailable.
import path from 'node:path';
import type { Catalog } from '../../core/catalog/schema.ts';
import type { ChatRequest } from '../../core/completion/chat.ts';
import type { GgufSettings } from '../../core/completion/config.ts';
import type { CompletionProvider, ProviderRequest } from '../../core/completion/provider.ts';
import { GgufProvider } from './gguf.ts';
import { findCatalogModel, resolveGgufModel } from './library.ts';

/** Where a catalog model name is looked up and its file found. */
export interface ModelLookup {
  catalog: Pick<Catalog, 'models'>;
  modelsDir: string;
}

export class ResolvingGgufProvider implements CompletionProvider {
  readonly kind = 'gguf' as const;
  readonly name: string;
  private loaded?: GgufProvider;

  constructor(
    private readonly settings: GgufSettings,
    private readonly lookup: ModelLookup,
  ) {
    const value = settings.model.trim();
    this.name = findCatalogModel(lookup.catalog.models, value)?.name ?? path.basename(value).replace(/\.gguf$/i, '');
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
      const { file } = resolveGgufModel(this.settings.model, this.lookup.catalog, this.lookup.modelsDir);
      this.loaded = new GgufProvider({ file, name: this.name, gpu: this.settings.gpu, contextSize: this.settings.contextSize });
    }
    return this.loaded;
  }

  async close(): Promise<void> {
    await this.loaded?.close();
  }
}
