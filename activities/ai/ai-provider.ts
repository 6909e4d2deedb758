/**
 * The one interface every AI node (and intent phrase generation) talks to a model through. The shipped
 * implementation speaks the OpenAI-compatible HTTP API (`openai-compatible-provider.ts`); another vendor's API is
 * another implementation of this interface.
 */

/** One message of a chat. `tool` messages answer the tool call named by `toolCallId`. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId?: string;
  /** Tool calls the assistant asked for (assistant messages only). */
  toolCalls?: ToolCall[];
}

/** A function the model may call: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A call the model asked for; `arguments` is the JSON text the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

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

/** A model provider. Implementations retry transient failures themselves and throw `NodeError` for permanent ones. */
export interface AiProvider {
  chat(request: ChatRequest): Promise<ChatResponse>;
  transcribe(request: TranscriptionRequest): Promise<{ text: string }>;
  /** Whether the provider answers (health checks); throws saying why not. */
  ping(signal: AbortSignal): Promise<void>;
}
