/**
 * AI_CAPTURE: extracts structured data from text with an LLM into variables. The model answers JSON with one
 * property per capture variable (structured output); the output is `{ captures }`, values it did not find left out.
 */
import { aiForNode, captureSchema, captureVariablesOf, foundCaptures, text } from '../ai/ai-node-support.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, NodeError, type NodeExecutor, type NodeModule } from './node-module.js';

const SYSTEM =
  'You extract values from the text the user gives. Answer with a JSON object holding one property per requested variable; ' +
  'use null for a value the text does not contain. Never invent values.';

const executeAiCapture: NodeExecutor = async (input, context) => {
  const variables = captureVariablesOf(input.data);
  if (!variables.length) throw new NodeError('AI_CAPTURE needs at least one capture variable (captureVariables)');
  const { session, model } = await aiForNode(input, context, 'TEXT');
  const wanted = variables.map((v) => `- ${v.name}${v.description ? `: ${v.description}` : ''}`).join('\n');
  const instructions = text(input.data.instructions);
  const values = await session.structured<Record<string, unknown>>(
    model,
    [
      { role: 'system', content: `${SYSTEM}${instructions ? `\n\n${instructions}` : ''}\n\nVariables:\n${wanted}` },
      { role: 'user', content: text(input.data.prompt) },
    ],
    'captures',
    captureSchema(variables),
  );
  return { output: { captures: foundCaptures(values) }, aiCredits: session.credits };
};

export const aiCaptureNode: NodeModule = {
  type: 'AI_CAPTURE',
  scopes: ['workflow'],
  summary: 'Extracts structured data from text with an LLM into captureVariables',
  data: {
    properties: {
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      instructions: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      captureVariables: CAPTURE_VARIABLES,
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['prompt', 'instructions'],
  captures: 'captureVariables',
  checks: [modelCheck('TEXT'), checkCaptureVariables],
  execute: executeAiCapture,
};
