/**
 * The contract of one AI call: what a node asks for (`AiCallRequest`, the input of the `aiCall` activity) and what
 * it reads back (`AiReply`). Types only and no imports, so the workflow, the activities and the node executors all
 * depend on it (see `lib/runtime/contract.ts`).
 */

/**
 * One message of a chat. `tool` messages answer the tool call named by `toolCallId`. `passages` names
 * knowledge-base passages by chunk id and score: the `aiCall` activity appends their text to the content just before
 * the call, so the run's Temporal history holds the ids, never the documents.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  passages?: { chunkId: string; score: number; n?: number }[];
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

/** A chat completion: the conversation so far, optionally structured output or tools. */
export interface ChatCall {
  kind: 'chat';
  messages: ChatMessage[];
  /** Asks for JSON fitting this schema (structured output). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  tools?: ToolDefinition[];
}

/**
 * A transcription of the audio at `audioUrl`. The activity downloads it (at most `maxBytes`), so the bytes never
 * travel through Temporal's history, whose payloads are limited to 2 MB.
 */
export interface TranscriptionCall {
  kind: 'transcription';
  audioUrl: string;
  maxBytes: number;
}

/** The catalog model a call runs on, fixed when the node asks for the call. */
export interface AiCallModel {
  /** The provider-side model name. */
  externalId: string;
  /** The catalog name, for messages. */
  name: string;
  creditsPerMessage: number;
}

/** One AI call a node execution asks for. */
export interface AiCallRequest {
  accountId: number;
  /**
   * Names the call on every attempt: `<executionKey>/ai-<n>`, n counting the calls of the node execution from 1.
   * Its credits are charged once under this key, however often the activity or the node is retried.
   */
  callKey: string;
  model: AiCallModel;
  call: ChatCall | TranscriptionCall;
}

/** What one AI call recorded: the model, tokens as the provider counted them, latency and credits charged. */
export interface AiCallRecord {
  model: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  credits: number;
}

/** The answer to one AI call: the model's text (a transcription's transcript) and tool calls, with its record. */
export interface AiReply {
  kind: ChatCall['kind'] | TranscriptionCall['kind'];
  content: string;
  toolCalls: ToolCall[];
  record: AiCallRecord;
}
