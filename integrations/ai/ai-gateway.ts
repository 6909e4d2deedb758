/**
 * The AI gateway: the provider behind one interface, plus what every AI call owes the platform — the model the
 * node resolves to, the call's credits charged before it is made (refused when the balance would go below zero,
 * given back when the call fails), tokens and latency recorded with it, and structured output validated against
 * its schema (one retry with the validation error fed back).
 *
 * A node execution does not call the provider itself: every AI call is an `aiCall` activity of its own, with its
 * own timeouts and retries (`workflows/node-runner.ts`). Most AI nodes ask for their call from a `prepare` step and
 * read the reply in a `finish` step (`nodes/support/ai-steps.ts`, with `checkStructured` and `structuredRepair`
 * for structured output). A node that loops over calls (TOOLS_AI) uses a session instead: it answers its calls from
 * the replies of the calls already made (`ExecuteNodeInput.aiReplies`) and stops the executor with `AiCallNeeded`
 * at the first call it has no reply for; the workflow makes that call and executes the node again with one reply more.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Ajv } from 'ajv';
import { chargeCredits, refundCredits } from '../../db/automations/run-ledger.js';
import type { AiModel } from '../../db/catalogs/ai-model.entity.js';
import type {
  AiCallModel,
  AiCallRecord,
  AiCallRequest,
  AiReply,
  ChatCall,
  ChatMessage,
  ToolCall,
  TranscriptionCall,
} from '../../lib/runtime/ai-call.js';
import type { ExecuteNodeInput } from '../../lib/runtime/contract.js';
import type { AiProvider } from './ai-provider.js';
import { performAiCall } from './perform-ai-call.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';
import { createOutboundFetch, type OutboundFetch } from '../outbound/outbound-fetch.js';
import { NodeError } from '../../lib/errors.js';

export type { AiCallRecord } from '../../lib/runtime/ai-call.js';

/** The one message every AI feature gives when no provider is configured. */
export const AI_NOT_CONFIGURED =
  'The AI gateway is not configured: set AI_BASE_URL (an OpenAI-compatible API such as OpenAI, Ollama or vLLM) and AI_API_KEY on the worker';

/**
 * Thrown by a node's AI session at a call it has no reply for yet. It stops the node executor: `executeNode`
 * answers the request, and executors must let it pass (never catch every error around an AI call).
 */
export class AiCallNeeded extends Error {
  constructor(readonly request: AiCallRequest) {
    super(`The node needs AI call ${request.callKey}`);
    this.name = 'AiCallNeeded';
  }
}

/** Makes (or answers) one call. */
type AiCaller = (model: AiCallModel, call: ChatCall | TranscriptionCall) => Promise<AiReply>;

const ajv = new Ajv({ allErrors: true, strict: false });

/** The calls of one node execution (or one API request); `credits` is what the node reports as `aiCredits`. */
export class AiSession {
  readonly calls: AiCallRecord[] = [];

  constructor(private readonly caller: AiCaller) {}

  get credits(): number {
    return this.calls.reduce((sum, call) => sum + call.credits, 0);
  }

  /** One chat call on `model`, refused before it is made when the account's balance cannot pay for it. */
  async chat(model: AiModel, request: Omit<ChatCall, 'kind'>): Promise<{ content: string; toolCalls: ToolCall[] }> {
    const { content, toolCalls } = await this.make(model, { kind: 'chat', ...request });
    return { content, toolCalls };
  }

  /** A transcription of the audio at `audio.audioUrl` (downloaded by the call, at most `maxBytes`), charged like a chat call. */
  async transcribe(model: AiModel, audio: Omit<TranscriptionCall, 'kind'>): Promise<string> {
    return (await this.make(model, { kind: 'transcription', ...audio })).content;
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

  private async make(model: AiModel, call: ChatCall | TranscriptionCall): Promise<AiReply> {
    const reply = await this.caller({ externalId: model.externalId, name: model.name, creditsPerMessage: model.creditsPerMessage }, call);
    this.calls.push(reply.record);
    return reply;
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

/** Answers the n-th call of a node execution with its n-th journaled reply; past the end, asks for the call. */
function journalCaller(input: ExecuteNodeInput): AiCaller {
  const replies = input.aiReplies ?? [];
  let made = 0;
  return async (model, call) => {
    made += 1;
    const reply = replies[made - 1];
    if (!reply) throw new AiCallNeeded({ accountId: input.accountId, callKey: `${input.executionKey}/ai-${made}`, model, call });
    // Executors are deterministic given their input and recorded effects; a different call means one is not.
    if (reply.kind !== call.kind || reply.record.model !== model.externalId)
      throw new NodeError(
        `AI call ${made} of this node was a ${reply.kind} call on ${reply.record.model}, and is now a ${call.kind} call on ${model.externalId}`,
      );
    return reply;
  };
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

  /**
   * The session of one node execution: its calls are answered from `input.aiReplies`, and the first one without a
   * reply throws `AiCallNeeded`. Fails with `AI_NOT_CONFIGURED` when there is no provider.
   */
  journaled(input: ExecuteNodeInput): AiSession {
    if (!this.provider) throw new NodeError(AI_NOT_CONFIGURED, 'AiNotConfigured');
    return new AiSession(journalCaller(input));
  }

  /** A session making its calls in-process, for API requests (phrase suggestions); fails like `journaled`. */
  direct(em: EntityManager, accountId: number, signal?: AbortSignal): AiSession {
    if (!this.provider) throw new NodeError(AI_NOT_CONFIGURED, 'AiNotConfigured');
    return new AiSession(directCaller(this.provider, this.outbound, em, accountId, signal));
  }
}
