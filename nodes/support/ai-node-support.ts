/**
 * What AI nodes share: extraction into `captureVariables` as AI steps (`askCaptures`, then `readCaptures` in
 * `finish`), and reading a model's text.
 */
import type { AiModel } from '../../db/catalogs/ai-model.entity.js';
import { stripFences } from '../../integrations/ai/ai-gateway.js';
import type { AiCallModel, AiReply, ChatMessage } from '../../lib/runtime/ai-call.js';
import type { AiAsk } from '../node-module.js';
import { askStructured, readStructured, type StructuredState } from './ai-steps.js';

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

/** The call that finds the values of `variables` in `source` (structured output); `readCaptures` reads its reply. */
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
