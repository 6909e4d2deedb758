/**
 * The AI gateway: the provider behind one interface, plus what every AI call owes the platform — the model the
 * node resolves to, the call's credits charged before it is made (refused when the balance would go below zero,
 * given back when the call fails), tokens and latency recorded with it, and structured output validated against
 * its schema (one retry with the validation error fed back).
 *
 * A node execution does not call the provider itself: every AI call is an `aiCall` activity of its own, with its
 * own timeouts and retries (`workflows/node-runner.ts`). AI nodes ask for their calls from `prepare` and `finish`
 * steps and read the replies in `finish` (`nodes/support/ai-steps.ts`, with `checkStructured` and
 * `structuredRepair` for structured output). Only API requests (phrase suggestions) call in-process, through a
 * session (`AiGateway.direct`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Ajv } from 'ajv';
import { chargeCredits, refundCredits } from '../../db/automations/run-ledger.js';
import type { AiModel } from '../../db/catalogs/ai-model.entity.js';
import type { AiCallModel, AiReply, ChatCall, ChatMessage, ToolCall, TranscriptionCall } from '../../lib/runtime/ai-call.js';
import type { AiProvider } from './ai-provider.js';
import { performAiCall } from './perform-ai-call.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';
import { createOutboundFetch, type OutboundFetch } from '../outbound/outbound-fetch.js';
import { NodeError } from '../../lib/errors.js';

export type { AiCallRecord } from '../../lib/runtime/ai-call.js';

/** The one message every AI feature gives when no provider is configured. */
export const AI_NOT_CONFIGURED =
  'The AI gateway is not configured: set AI_BASE_URL (an OpenAI-compatible API such as OpenAI, Ollama or vLLM) and AI_API_KEY on the worker';

/** Makes one call. */
type AiCaller = (model: AiCallModel, call: ChatCall | TranscriptionCall) => Promise<AiReply>;

const ajv = new Ajv({ allErrors: true, strict: false });

/** The calls of one API request. */
export class AiSession {
  constructor(private readonly caller: AiCaller) {}

  /** One chat call on `model`, refused before it is made when the account's balance cannot pay for it. */
  async chat(model: AiModel, request: Omit<ChatCall, 'kind'>): Promise<{ content: string; toolCalls: ToolCall[] }> {
    const { content, toolCalls } = await this.make(model, { kind: 'chat', ...request });
    return { content, toolCalls };
  }

  /**
   * JSON fitting `schema`. An answer that is not JSON or does not fit is sent back once with the validation error;
   * a second miss fails the node with the model's text in the message.
   */
  async structured<T>(model: AiModel, messages: ChatMessage[], name: string, schema: Record<string, unknown>): Promise<T> {
    const conversation = [...messages];
    for (let attempt = 1; ; attempt++) {
      const { content } = await this.chat(model, { messages: conversation, jsonSchema: { name, schema } });
      const checked = checkStructured<T>(content, schema);
      if ('value' in checked) return checked.value;
      if (attempt === 2) throw structuredInvalid(checked.problem, content);
      conversation.push(...structuredRepair(content, checked.problem));
    }
  }

  private make(model: AiModel, call: ChatCall | TranscriptionCall): Promise<AiReply> {
    return this.caller({ externalId: model.externalId, name: model.name, creditsPerMessage: model.creditsPerMessage }, call);
  }
}

/** A structured answer that parses and fits `schema` (its value), or what is wrong with it. */
export function checkStructured<T>(content: string, schema: Record<string, unknown>): { value: T } | { problem: string } {
  const validate = ajv.compile(schema);
  try {
    const value = JSON.parse(stripFences(content)) as unknown;
    if (validate(value)) return { value: value as T };
    return { problem: ajv.errorsText(validate.errors, { dataVar: 'answer' }) };
  } catch {
    return { problem: 'the answer is not JSON' };
  }
}

/** The messages that send an invalid structured answer back once, with what is wrong with it. */
export function structuredRepair(content: string, problem: string): ChatMessage[] {
  return [
    { role: 'assistant', content },
    { role: 'user', content: `That answer is invalid: ${problem}. Answer again with JSON only, fitting the schema.` },
  ];
}

/** The failure of a structured answer that still does not fit after its repair. */
export function structuredInvalid(problem: string, content: string): NodeError {
  return new NodeError(`The AI model's answer does not fit the expected schema (${problem}): ${content.slice(0, 2000)}`, 'AiOutputInvalid');
}

/** Local models often wrap JSON in a Markdown code fence even when asked for JSON only. */
export function stripFences(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

/** The failure of a call the account's balance cannot pay for (it stops the run with `insufficient_credits`). */
export function insufficientCredits(model: AiCallModel): NodeError {
  return new NodeError(
    `Insufficient credits: a call to "${model.name}" costs ${model.creditsPerMessage} credits, more than the account has left`,
    'InsufficientCredits',
  );
}

/** Makes calls in-process: charged before, given back when the call fails. */
function directCaller(provider: AiProvider, outbound: OutboundFetch, em: EntityManager, accountId: number, signal?: AbortSignal): AiCaller {
  return async (model, call) => {
    let charged = false;
    const pay = async () => {
      if (!(await chargeCredits(em, accountId, model.creditsPerMessage))) throw insufficientCredits(model);
      charged = true;
    };
    try {
      return await performAiCall(provider, model, call, { signal, downloadTimeoutMs: 30_000, outbound, pay });
    } catch (error) {
      if (charged) await refundCredits(em, accountId, model.creditsPerMessage);
      throw error;
    }
  };
}

/** The gateway a worker (or the API) holds: null provider when AI_BASE_URL is unset. */
export class AiGateway {
  /** `outbound` downloads the audio of in-process transcriptions; by default it refuses every private address. */
  constructor(
    readonly provider: AiProvider | null,
    private readonly outbound: OutboundFetch = createOutboundFetch(REFUSE_PRIVATE),
  ) {}

  /** A session making its calls in-process, for API requests (phrase suggestions); fails with `AI_NOT_CONFIGURED` without a provider. */
  direct(em: EntityManager, accountId: number, signal?: AbortSignal): AiSession {
    if (!this.provider) throw new NodeError(AI_NOT_CONFIGURED, 'AiNotConfigured');
    return new AiSession(directCaller(this.provider, this.outbound, em, accountId, signal));
  }
}
