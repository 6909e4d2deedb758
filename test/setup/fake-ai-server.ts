/**
 * A local HTTP server speaking the OpenAI-compatible API (`/v1/chat/completions`, `/v1/audio/transcriptions`),
 * standing in for the AI provider: tests script its answers in order and read the requests it received.
 * `/v1/embeddings` takes no scripted reply: it answers `embed(text)` for each input (by default `hashedEmbedding`,
 * deterministic), which a test may replace to control what is near what.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: a chat reply (text or tool calls), or any status, headers and body; optionally late. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: { name: string; arguments: unknown }[];
  /** A transcription's text. */
  text?: string;
  status?: number;
  headers?: Record<string, string>;
  /** A raw body instead of a chat completion. */
  body?: string;
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** A request the server received: path, Authorization header, and the JSON body (chat) or the raw text (multipart). */
export interface ReceivedRequest {
  path: string;
  authorization?: string;
  body: Record<string, unknown>;
  raw: string;
  at: number;
}

/** A deterministic 64-dimension vector of a text: its words hashed into buckets (texts sharing words are near). */
export function hashedEmbedding(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const c of word) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    vector[hash % 64]! += 1;
  }
  return vector;
}

export class FakeAiServer {
  readonly requests: ReceivedRequest[] = [];
  /** The vector `/embeddings` answers for one input text. */
  embed: (text: string) => number[] = hashedEmbedding;
  /** When set, `/embeddings` answers this status instead of vectors (404: a server without them; 503: one that is down). */
  embeddingsStatus: number | null = null;
  /** Requests `/embeddings` received, answered or not. */
  embeddingRequests = 0;
  /** Texts `/embeddings` received, in order. */
  readonly embedded: string[] = [];
  private replies: ScriptedReply[] = [];
  private server?: Server;
  baseUrl = '';

  /** Answers in this order, replacing what was left of the previous script; forgets received requests. */
  script(...replies: ScriptedReply[]): void {
    this.replies = [...replies];
    this.requests.length = 0;
  }

  /** The chat requests received since the last `script`. */
  get chats(): ReceivedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.answer(req).then(({ status, headers, body }) => res.writeHead(status, headers).end(body)));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private embeddings(body: Record<string, unknown>): { status: number; headers: Record<string, string>; body: string } {
    const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
    this.embeddingRequests += 1;
    if (this.embeddingsStatus)
      return {
        status: this.embeddingsStatus,
        headers: {},
        body: JSON.stringify({ error: { message: `unknown path /v1/embeddings (${this.embeddingsStatus})` } }),
      };
    this.embedded.push(...input);
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: this.embed(text) }));
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ object: 'list', data, usage: { prompt_tokens: input.length } }),
    };
  }

  private async answer(req: IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // multipart (transcriptions): tests read `raw`
    }
    // Health checks list models; they take no scripted reply.
    if (req.method === 'GET' && req.url?.endsWith('/models')) return { status: 200, headers: {}, body: JSON.stringify({ object: 'list', data: [] }) };
    if (req.url?.endsWith('/embeddings')) return this.embeddings(body);
    this.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body, raw, at: Date.now() });
    const reply = this.replies.shift();
    if (!reply) return { status: 500, headers: {}, body: JSON.stringify({ error: { message: 'the fake AI server has no scripted reply left' } }) };
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const json = { 'content-type': 'application/json', ...reply.headers };
    if (reply.status && reply.status !== 200)
      return { status: reply.status, headers: json, body: reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }) };
    if (reply.body !== undefined) return { status: 200, headers: json, body: reply.body };
    if (reply.text !== undefined) return { status: 200, headers: json, body: JSON.stringify({ text: reply.text }) };
    const toolCalls = reply.toolCalls?.map((c, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    const message = { role: 'assistant', content: reply.content ?? null, ...(toolCalls && { tool_calls: toolCalls }) };
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    return {
      status: 200,
      headers: json,
      body: JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion', choices: [{ index: 0, message }], usage }),
    };
  }
}
