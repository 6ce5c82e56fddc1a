// The contract between the completion engine and the model providers (builtin, gguf, openai).
// The engine cuts the text to its budgets, applies the stop rules, caches and cancels; a
// provider only turns a prefix and a suffix into text. A provider that can hold a conversation
// (gguf, openai) also has `chat()`, the agents' interface (chat.ts).
import type { ChatRequest, ChatResult } from './chat.ts';

export type ProviderKind = 'builtin' | 'gguf' | 'openai';

export interface ProviderCapabilities {
  /** Fills in between a prefix and a suffix (fill-in-the-middle). */
  fim: boolean;
  /** Follows an instruction (a chat model). */
  chat: boolean;
  /** Calls tools (agents). */
  tools: boolean;
}

export interface ProviderRequest {
  /**
   * Text before the cursor, already cut to the engine's prefix budget. For the model providers
   * (gguf, openai) of a server with a code index, it starts with the cross-file context: the
   * definitions from other files of the identifiers near the cursor, as comments of the file's
   * language headed by their path, within the same budget (cross-file.ts).
   */
  prefix: string;
  /** Text after the cursor, already cut to the engine's suffix budget. */
  suffix: string;
  /** Language id (typescript, python, …) as the client named it. */
  language: string;
  /** The document's path as the client named it: keys per-document state (file cache, KV cache). */
  filePath?: string;
  /**
   * `fim`: the text that belongs at the cursor (tab completion, continuing code).
   * `instruct`: `prefix` is an instruction in prose; answer with code only (chat models only).
   */
  mode: 'fim' | 'instruct';
  /** Upper bound on generated tokens. */
  maxTokens: number;
  /**
   * Called with the text generated so far; returns how many characters of it to keep when
   * generation must end there, or `undefined` to go on. Token-by-token providers call it after
   * each token so they stop early; the engine applies it once more to whatever comes back.
   */
  stop: (text: string) => number | undefined;
  /** Aborted when the request is superseded, times out or its client goes away. */
  signal: AbortSignal;
}

export interface ProviderResult {
  text: string;
  /** Tokens generated (the provider's own tokenizer). */
  tokens: number;
}

export interface CompletionProvider {
  readonly kind: ProviderKind;
  /** Reported as `model` in responses; a request may name it (or the kind) to pick this provider. */
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /**
   * Text around the cursor this provider wants, when not the configured budgets (the builtin
   * model reads whole files cheaply; a model with a small context wants less).
   */
  readonly contextBudget?: { prefixChars: number; suffixChars: number };
  /**
   * Throws LoomError `model_unavailable` (the model cannot be loaded or reached),
   * `model_failed` (it answered with an error) or `model_timeout`; an aborted request rejects
   * with the signal's reason.
   */
  complete(request: ProviderRequest): Promise<ProviderResult>;
  /**
   * The model's next turn in a conversation, with tool calls (see chat.ts); absent on
   * providers that cannot chat (builtin). `capabilities.chat` says whether the model was made
   * for it (a chat model), `capabilities.tools` whether tools reach it natively.
   */
  chat?(request: ChatRequest): Promise<ChatResult>;
  /** Frees what the provider holds (model memory, sockets). */
  close(): Promise<void>;
}
