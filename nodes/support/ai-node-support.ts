/** What AI node executors share: a session on the node's model, and extraction into `captureVariables`. */
import type { AiModel, AiModelType } from '../../db/entities/index.js';
import type { ExecuteNodeInput } from '../../lib/runtime/contract.js';
import type { ExecutionContext } from '../node-module.js';
import { stripFences, type AiSession } from '../../integrations/ai/ai-gateway.js';
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

/** Values of `variables` found in `source` by the model (structured output); the ones it did not find left out. */
export async function extractCaptures(
  session: AiSession,
  model: AiModel,
  variables: CaptureVariable[],
  instructions: string,
  source: string,
): Promise<Record<string, unknown>> {
  const wanted = variables.map((v) => `- ${v.name}${v.description ? `: ${v.description}` : ''}`).join('\n');
  const values = await session.structured<Record<string, unknown>>(
    model,
    [
      { role: 'system', content: `${EXTRACT}${instructions ? `\n\n${instructions}` : ''}\n\nVariables:\n${wanted}` },
      { role: 'user', content: source },
    ],
    'captures',
    captureSchema(variables),
  );
  return foundCaptures(values);
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
