/**
 * The one interface every AI node (and intent phrase generation) talks to a model through. The shipped
 * implementation speaks the OpenAI-compatible HTTP API (`openai-compatible-provider.ts`); another vendor's API is
 * another implementation of this interface.
 */
import type { ChatMessage, ToolCall, ToolDefinition } from '../../lib/runtime/ai-call.js';

export type { ChatMessage, ToolCall, ToolDefinition } from '../../lib/runtime/ai-call.js';

export interface ChatRequest {
  /** The provider-side model name (the catalog's `externalId`). */
  model: string;
  messages: ChatMessage[];
  /** Asks for JSON fitting this schema (structured output). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  tools?: ToolDefinition[];
  signal?: AbortSignal;
}

/** Tokens a call used, as the provider counted them (0 when it does not say). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResponse {
  /** The model's text (empty when it only called tools). */
  content: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
}

export interface TranscriptionRequest {
  model: string;
  audio: Uint8Array;
  fileName: string;
  contentType: string;
  signal?: AbortSignal;
}

export interface EmbeddingRequest {
  model: string;
  /** Texts to embed, in order. */
  input: string[];
  signal?: AbortSignal;
}

/**
 * A transient provider failure (429, 5xx, a timeout, the network): worth trying again, after `retryAfterMs` when
 * the provider said how long to wait (`Retry-After`).
 */
export class AiProviderUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'AiProviderUnavailableError';
  }
}

/**
 * A model provider. Each method makes one attempt: it throws `AiProviderUnavailableError` for a transient failure
 * (the `aiCall` activity's retry policy tries again) and `NodeError` for a permanent one (another 4xx).
 */
export interface AiProvider {
  /** Where the provider is (its base URL): what a gap it showed (no `/embeddings`) is remembered under. */
  readonly endpoint: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
  transcribe(request: TranscriptionRequest): Promise<{ text: string }>;
  /** One vector per input text, in order (OpenAI-compatible `/embeddings`). */
  embed(request: EmbeddingRequest): Promise<{ vectors: number[][]; usage: TokenUsage }>;
  /** Whether the provider answers (health checks); throws saying why not. */
  ping(signal: AbortSignal): Promise<void>;
}
