// The providers a server offers and which one answers by default, built from the completion
// settings. Reconfiguring (a settings.json edit in the desktop app) swaps providers in place:
// nothing else restarts, and a provider whose settings did not change keeps its loaded model.
import type { CompletionConfig, GgufSettings, OpenAiSettings } from './config.ts';
import { LoomError } from '../errors.ts';
import type { ChatProvider } from './chat.ts';
import type { CompletionProvider, ProviderKind } from './provider.ts';

export interface ProviderFactories {
  gguf(settings: GgufSettings): CompletionProvider;
  openai(settings: OpenAiSettings): CompletionProvider;
}

interface Slot {
  settings: string;
  provider: CompletionProvider;
}

export class ProviderSet {
  private defaultKind: ProviderKind = 'builtin';
  private readonly slots = new Map<Exclude<ProviderKind, 'builtin'>, Slot>();

  /**
   * `explain` adds to a hint where the settings it names are set on this server (the file and
   * key, the environment variable): the server's, from the configuration it read.
   */
  constructor(
    private readonly builtin: CompletionProvider,
    private readonly factories: ProviderFactories,
    config?: CompletionConfig,
    readonly explain: (hint: string) => string = (hint) => hint,
  ) {
    if (config) this.configure(config);
  }

  /** Applies completion settings: creates, keeps or closes the gguf and openai providers. */
  configure(config: CompletionConfig): void {
    this.place('gguf', config.gguf && { settings: config.gguf, make: () => this.factories.gguf(config.gguf!) });
    this.place('openai', config.openai && { settings: config.openai, make: () => this.factories.openai(config.openai!) });
    this.defaultKind = config.provider;
  }

  /** The provider a request names (by name or kind), or the default one. */
  select(model?: string): CompletionProvider {
    if (model === undefined || model === '') return this.byKind(this.defaultKind);
    for (const provider of this.all()) if (provider.name === model || provider.kind === model) return provider;
    throw new LoomError(
      'unknown_model',
      `This server does not serve the model ${JSON.stringify(model.slice(0, 200))}.`,
      `Models served here: ${this.names().join(', ')}.`,
    );
  }

  /** Names of the providers offered, the default first. */
  names(): string[] {
    return this.ordered().map((p) => p.name);
  }

  chatModels(): string[] {
    return this.all()
      .filter((p) => p.capabilities.chat)
      .map((p) => p.name);
  }

  /**
   * The provider a conversation (an agent's) goes to: the one `model` names (by name or kind),
   * else the default one when it can chat, else the first that can. A gguf model chats
   * whether or not its file has a chat template (capabilities.chat says whether it was made
   * for it). Throws LoomError `unknown_model`, or `bad_request` when the provider named, or
   * every one, cannot chat.
   */
  selectChat(model?: string): CompletionProvider & ChatProvider {
    const canChat = (provider: CompletionProvider): provider is CompletionProvider & ChatProvider => typeof provider.chat === 'function';
    if (model !== undefined && model !== '') {
      const named = this.select(model);
      if (canChat(named)) return named;
      throw new LoomError('bad_request', `The model ${named.name} completes code but cannot chat.`, this.chatHint());
    }
    const chosen = this.ordered().find(canChat);
    if (!chosen) throw new LoomError('bad_request', 'No model served here can chat.', this.chatHint());
    return chosen;
  }

  private chatHint(): string {
    const chatting = this.all()
      .filter((provider) => typeof provider.chat === 'function')
      .map((provider) => provider.name);
    const setUp = this.explain(
      'Set openai.baseUrl and openai.model to an OpenAI-compatible server (Ollama: http://127.0.0.1:11434/v1 and qwen2.5-coder:7b), or run a model here: `loom models pull Qwen2.5-Coder-7B`, then set gguf.model to Qwen2.5-Coder-7B.',
    );
    return chatting.length ? `Models that can chat: ${chatting.join(', ')}. To add one: ${setUp}` : setUp;
  }

  async close(): Promise<void> {
    const providers = this.all();
    this.slots.clear();
    await Promise.allSettled(providers.map((p) => p.close()));
  }

  /** The providers, the default first. */
  private ordered(): CompletionProvider[] {
    const first = this.defaultKind === 'builtin' ? this.builtin : (this.slots.get(this.defaultKind)?.provider ?? this.builtin);
    return [first, ...this.all().filter((p) => p !== first)];
  }

  private all(): CompletionProvider[] {
    return [this.builtin, ...[...this.slots.values()].map((slot) => slot.provider)];
  }

  private byKind(kind: ProviderKind): CompletionProvider {
    if (kind === 'builtin') return this.builtin;
    const slot = this.slots.get(kind);
    if (!slot)
      throw new LoomError(
        'model_unavailable',
        `The default completion provider is ${kind}, but it is not configured.`,
        this.explain(`Set ${kind === 'gguf' ? 'gguf.model' : 'openai.baseUrl and openai.model'}, or completion.provider to builtin.`),
      );
    return slot.provider;
  }

  private place(kind: 'gguf' | 'openai', wanted: { settings: object; make: () => CompletionProvider } | undefined): void {
    const current = this.slots.get(kind);
    const settings = wanted && JSON.stringify(wanted.settings);
    if (current && current.settings === settings) return;
    if (current) {
      this.slots.delete(kind);
      // Requests still running on the old provider finish or fail on their own; its memory goes.
      void current.provider.close().catch(() => {});
    }
    if (wanted) this.slots.set(kind, { settings: settings!, provider: wanted.make() });
  }
}
