/**
 * What AI nodes share: a session on the node's model (TOOLS_AI), and extraction into `captureVariables`, as a
 * session call (`extractCaptures`) or as AI steps (`askCaptures`, then `readCaptures` in `finish`).
 */
import type { AiModel, AiModelType } from '../../db/catalogs/ai-model.entity.js';
import type { ExecuteNodeInput } from '../../lib/runtime/contract.js';
import type { ExecutionContext } from '../node-module.js';
import { stripFences, type AiSession } from '../../integrations/ai/ai-gateway.js';
import type { AiCallModel, AiReply, ChatMessage } from '../../lib/runtime/ai-call.js';
import type { AiAsk } from '../node-module.js';
import { askStructured, readStructured, type StructuredState } from './ai-steps.js';
import { resolveModel } from '../../integrations/ai/model-resolution.js';

/** The AI session of one node execution and the model its data resolves to. */
export async function aiForNode(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  type: AiModelType,
): Promise<{ session: AiSession; model: AiModel }> {
  const session = context.aiSession();
  return { session, model: await resolveModel(context.orm.em.fork(), input.data, type) };
}

/** A saved capture variable (`{ id, name, description }`). */
export interface CaptureVariable {
  name: string;
  description?: string;
}

export function captureVariablesOf(data: Record<string, unknown>): CaptureVariable[] {
  const items = Array.isArray(data.captureVariables) ? data.captureVariables : [];
  return items.filter((v): v is CaptureVariable => typeof v?.name === 'string' && v.name !== '');
}

/**
 * The JSON Schema of captured values: one property per variable, each a string or null (not found). Every property
 * is required and no other is allowed, as strict structured output demands.
 */
function captureSchema(variables: CaptureVariable[]): Record<string, unknown> {
  const properties = Object.fromEntries(
    variables.map((v) => [v.name, { type: ['string', 'number', 'boolean', 'null'], description: v.description || `The value of ${v.name}` }]),
  );
  return { type: 'object', properties, required: variables.map((v) => v.name), additionalProperties: false };
}

/** Captured values without the nulls: a variable the model did not find stays as it was. */
function foundCaptures(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));
}

const EXTRACT =
  'You extract values from the text the user gives. Answer with a JSON object holding one property per requested variable; ' +
  'use null for a value the text does not contain. Never invent values.';

function captureMessages(variables: CaptureVariable[], instructions: string, source: string): ChatMessage[] {
  const wanted = variables.map((v) => `- ${v.name}${v.description ? `: ${v.description}` : ''}`).join('\n');
  return [
    { role: 'system', content: `${EXTRACT}${instructions ? `\n\n${instructions}` : ''}\n\nVariables:\n${wanted}` },
    { role: 'user', content: source },
  ];
}

/** Values of `variables` found in `source` by the model (structured output); the ones it did not find left out. */
export async function extractCaptures(
  session: AiSession,
  model: AiModel,
  variables: CaptureVariable[],
  instructions: string,
  source: string,
): Promise<Record<string, unknown>> {
  const messages = captureMessages(variables, instructions, source);
  const values = await session.structured<Record<string, unknown>>(model, messages, 'captures', captureSchema(variables));
  return foundCaptures(values);
}

/** `extractCaptures` as AI steps: the call a step asks for; `readCaptures` reads its reply. */
export function askCaptures(
  model: AiModel | AiCallModel,
  variables: CaptureVariable[],
  instructions: string,
  source: string,
): AiAsk<StructuredState> {
  return askStructured(model, captureMessages(variables, instructions, source), 'captures', captureSchema(variables));
}

/** The values a capture call found (the ones it did not find left out), or its repair call. */
export function readCaptures(state: StructuredState, reply: AiReply): { captures: Record<string, unknown> } | AiAsk<StructuredState> {
  const read = readStructured<Record<string, unknown>>(state, reply);
  return 'value' in read ? { captures: foundCaptures(read.value) } : read;
}

export const text = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value));

/** JSON when the answer parses (a Markdown code fence around it allowed), else the text as the model wrote it. */
export function parsedOrText(content: string): unknown {
  try {
    return JSON.parse(stripFences(content));
  } catch {
    return content.trim();
  }
}
