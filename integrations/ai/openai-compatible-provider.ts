/**
 * The OpenAI-compatible HTTP API (`POST /chat/completions`, `POST /audio/transcriptions`,
 * `POST /embeddings`), which OpenAI, Ollama,
 * vLLM and llama.cpp servers all speak. One HTTP call per method call: rate limits (429), server errors (5xx),
 * timeouts and network errors throw `AiProviderUnavailableError` (with what `Retry-After` asks), which the `aiCall`
 * activity's retry policy retries with backoff; other 4xx answers are permanent (`NodeError`).
 */
import {
  AiProviderUnavailableError,
  type AiProvider,
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingRequest,
  type TokenUsage,
  type ToolCall,
  type TranscriptionRequest,
} from './ai-provider.js';
import { NodeError } from '../../lib/errors.js';

export interface OpenAiCompatibleOptions {
  /** Base URL up to the version segment, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Timeout of one HTTP call. */
  timeoutMs: number;
}

export const DEFAULT_PROVIDER_OPTIONS = { timeoutMs: 60_000 };

/** Seconds or an HTTP date, as `Retry-After` may say; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  const toolCalls = m.toolCalls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return { role: m.role, content: m.content, ...(toolCalls?.length && { tool_calls: toolCalls }) };
}

interface WireChoice {
  message?: { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
}

/** A 4xx answer other than 429: permanent, with its status (404 or 405: the provider has no such endpoint). */
export class AiRequestRefusedError extends NodeError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message, 'AiRequestRefused');
  }
}

export class OpenAiCompatibleProvider implements AiProvider {
  readonly endpoint: string;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.endpoint = options.baseUrl;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const body = {
      model: request.model,
      messages: request.messages.map(wireMessage),
      ...(request.jsonSchema && { response_format: { type: 'json_schema', json_schema: { ...request.jsonSchema, strict: true } } }),
      ...(request.tools?.length && {
        tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
      }),
    };
    const answer = (await this.call('/chat/completions', () => JSON.stringify(body), 'application/json', request.signal)) as {
      choices?: WireChoice[];
      usage?: { prompt_tokens?: number; completion_tokens?: number };
    };
    const message = answer.choices?.[0]?.message;
    if (!message) throw new AiProviderUnavailableError('The AI provider answered without a choice');
    const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${i}`,
      name: c.function?.name ?? '',
      arguments: c.function?.arguments ?? '{}',
    }));
    return {
      content: message.content ?? '',
      toolCalls,
      usage: { promptTokens: answer.usage?.prompt_tokens ?? 0, completionTokens: answer.usage?.completion_tokens ?? 0 },
    };
  }

  async transcribe(request: TranscriptionRequest): Promise<{ text: string }> {
    const form = () => {
      const data = new FormData();
      data.set('model', request.model);
      data.set('file', new Blob([request.audio], { type: request.contentType }), request.fileName);
      return data;
    };
    const answer = (await this.call('/audio/transcriptions', form, undefined, request.signal)) as { text?: string };
    return { text: answer.text ?? '' };
  }

  async embed(request: EmbeddingRequest): Promise<{ vectors: number[][]; usage: TokenUsage }> {
    const body = JSON.stringify({ model: request.model, input: request.input });
    const answer = (await this.call('/embeddings', () => body, 'application/json', request.signal)) as {
      data?: { index?: number; embedding?: number[] }[];
      usage?: { prompt_tokens?: number };
    };
    const data = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== request.input.length || data.some((d) => !Array.isArray(d.embedding)))
      throw new AiProviderUnavailableError(`The AI provider answered /embeddings with ${data.length} vectors for ${request.input.length} texts`);
    return { vectors: data.map((d) => d.embedding!), usage: { promptTokens: answer.usage?.prompt_tokens ?? 0, completionTokens: 0 } };
  }

  /** `GET /models`: listed by every OpenAI-compatible server, free, and it checks the key. */
  async ping(signal: AbortSignal): Promise<void> {
    const response = await fetch(`${this.options.baseUrl}/models`, { headers: { authorization: `Bearer ${this.options.apiKey}` }, signal });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`GET /models answered ${response.status}`);
  }

  /** One API call; answers the parsed JSON body. */
  private async call(path: string, body: () => string | FormData, contentType: string | undefined, signal?: AbortSignal): Promise<unknown> {
    const { baseUrl, apiKey, timeoutMs } = this.options;
    let response: Response;
    let text: string;
    try {
      // AI_BASE_URL is the operator's (often a local Ollama): outside the outbound address policy, which is for users' URLs.
      response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, ...(contentType && { 'content-type': contentType }) },
        body: body(),
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]),
      });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw error;
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      throw new AiProviderUnavailableError(`The AI provider did not answer ${path}: ${reason}`);
    }
    if (response.ok) {
      try {
        return JSON.parse(text);
      } catch {
        throw new AiProviderUnavailableError(`The AI provider answered ${path} with a body that is not JSON`);
      }
    }
    const detail = providerMessage(text);
    if (response.status !== 429 && response.status < 500) {
      throw new AiRequestRefusedError(`The AI provider refused the request (${response.status}): ${detail}`, response.status);
    }
    throw new AiProviderUnavailableError(`The AI provider answered ${response.status}: ${detail}`, retryAfterMs(response.headers.get('retry-after')));
  }
}

/** The `error.message` of an OpenAI-style error body, else the start of the body. */
function providerMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (message) return message.slice(0, 500);
  } catch {
    // not JSON: show the text itself
  }
  return text.slice(0, 500) || '(empty body)';
}

/** The provider `AI_BASE_URL` and `AI_API_KEY` configure, or null when they are unset. */
export function aiProviderFrom(ai: { baseUrl: string; apiKey: string } | null): AiProvider | null {
  return ai ? new OpenAiCompatibleProvider({ ...DEFAULT_PROVIDER_OPTIONS, ...ai }) : null;
}
