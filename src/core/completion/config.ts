// The completion settings the engine and its providers work from. Core declares them; the
// config loader (src/config/load.ts) fills them from flags, environment and file, and the
// desktop app's settings.json may override them while Loom runs.

/** How completions are produced: the default provider, the engine's limits, each provider's settings. */
export interface CompletionConfig {
  provider: 'builtin' | 'gguf' | 'openai';
  timeoutMs: number;
  maxTokens: number;
  prefixChars: number;
  suffixChars: number;
  gguf?: GgufSettings;
  openai?: OpenAiSettings;
}

/** A model run in-process: a catalog name or a file path, where it runs, and its context window. */
export interface GgufSettings {
  model: string;
  gpu: 'auto' | 'off' | 'cuda' | 'vulkan' | 'metal';
  contextSize: number;
}

/** An OpenAI-compatible server, the model it serves and whether to use its FIM endpoint. */
export interface OpenAiSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  fim: 'auto' | 'on' | 'off';
}
