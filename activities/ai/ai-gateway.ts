/**
 * The AI gateway: the provider behind one interface, plus what every AI call owes the platform — the model the
 * node resolves to, the call's credits charged before it is made (refused when the balance would go below zero,
 * given back when the call fails), tokens and latency recorded after it, and structured output validated against its schema (one retry with the validation error fed back).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Ajv } from 'ajv';
import { chargeCredits, refundCredits } from '../../db/automations/run-ledger.js';
import type { AiModel } from '../../db/entities/index.js';
import { NodeError } from '../nodes/node-module.js';
import { aiCallDuration, aiTokens } from './ai-metrics.js';
import type { AiProvider, ChatMessage, ChatRequest, ChatResponse, TranscriptionRequest } from './ai-provider.js';

/** The one message every AI feature gives when no provider is configured. */
export const AI_NOT_CONFIGURED =
  'The AI gateway is not configured: set AI_BASE_URL (an OpenAI-compatible API such as OpenAI, Ollama or vLLM) and AI_API_KEY on the worker';

/** One AI call, as recorded. */
export interface AiCallRecord {
  model: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  credits: number;
}

const ajv = new Ajv({ allErrors: true, strict: false });

/** The calls of one node execution; `credits` is what the node reports as `aiCredits`. */
export class AiSession {
  readonly calls: AiCallRecord[] = [];

  constructor(
    private readonly provider: AiProvider,
    private readonly em: EntityManager,
    private readonly accountId: number,
    private readonly signal?: AbortSignal,
  ) {}

  get credits(): number {
    return this.calls.reduce((sum, call) => sum + call.credits, 0);
  }

  /** One chat call on `model`, refused before it is made when the account's balance cannot pay for it. */
  async chat(model: AiModel, request: Omit<ChatRequest, 'model' | 'signal'>): Promise<ChatResponse> {
    await this.charge(model);
    const started = performance.now();
    let outcome = 'failure';
    try {
      const response = await this.provider.chat({ ...request, model: model.externalId, signal: this.signal });
      outcome = 'success';
      this.record(model, response, started);
      return response;
    } catch (error) {
      await refundCredits(this.em, this.accountId, model.creditsPerMessage);
      throw error;
    } finally {
      aiCallDuration.observe({ model: model.externalId, outcome }, (performance.now() - started) / 1000);
    }
  }

  /** A transcription of `audio` on a TRANSCRIPTION model, charged like a chat call. */
  async transcribe(model: AiModel, audio: Omit<TranscriptionRequest, 'model' | 'signal'>): Promise<string> {
    await this.charge(model);
    const started = performance.now();
    try {
      const { text } = await this.provider.transcribe({ ...audio, model: model.externalId, signal: this.signal });
      this.record(model, { content: text, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } }, started);
      return text;
    } catch (error) {
      await refundCredits(this.em, this.accountId, model.creditsPerMessage);
      throw error;
    }
  }

  /**
   * JSON fitting `schema`. An answer that is not JSON or does not fit is sent back once with the validation error;
   * a second miss fails the node with the model's text in the message.
   */
  async structured<T>(model: AiModel, messages: ChatMessage[], name: string, schema: Record<string, unknown>): Promise<T> {
    const validate = ajv.compile(schema);
    const conversation = [...messages];
    for (let attempt = 1; ; attempt++) {
      const { content } = await this.chat(model, { messages: conversation, jsonSchema: { name, schema } });
      let problem: string;
      try {
        const value = JSON.parse(stripFences(content)) as unknown;
        if (validate(value)) return value as T;
        problem = ajv.errorsText(validate.errors, { dataVar: 'answer' });
      } catch {
        problem = 'the answer is not JSON';
      }
      if (attempt === 2)
        throw new NodeError(`The AI model's answer does not fit the expected schema (${problem}): ${content.slice(0, 2000)}`, 'AiOutputInvalid');
      conversation.push(
        { role: 'assistant', content },
        { role: 'user', content: `That answer is invalid: ${problem}. Answer again with JSON only, fitting the schema.` },
      );
    }
  }

  /** Charges the call before it is made; refused when the balance would go below zero. */
  private async charge(model: AiModel): Promise<void> {
    if (await chargeCredits(this.em, this.accountId, model.creditsPerMessage)) return;
    throw new NodeError(
      `Insufficient credits: a call to "${model.name}" costs ${model.creditsPerMessage} credits, more than the account has left`,
      'InsufficientCredits',
    );
  }

  private record(model: AiModel, response: ChatResponse, started: number): void {
    const { promptTokens, completionTokens } = response.usage;
    aiTokens.inc({ model: model.externalId, kind: 'prompt' }, promptTokens);
    aiTokens.inc({ model: model.externalId, kind: 'completion' }, completionTokens);
    this.calls.push({
      model: model.externalId,
      promptTokens,
      completionTokens,
      latencyMs: Math.round(performance.now() - started),
      credits: model.creditsPerMessage,
    });
  }
}

/** Local models often wrap JSON in a Markdown code fence even when asked for JSON only. */
export function stripFences(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

/** The gateway a worker holds: null provider when AI_BASE_URL is unset. */
export class AiGateway {
  constructor(readonly provider: AiProvider | null) {}

  /** A session for one node execution; fails with `AI_NOT_CONFIGURED` when there is no provider. */
  session(em: EntityManager, accountId: number, signal?: AbortSignal): AiSession {
    if (!this.provider) throw new NodeError(AI_NOT_CONFIGURED, 'AiNotConfigured');
    return new AiSession(this.provider, em, accountId, signal);
  }
}
