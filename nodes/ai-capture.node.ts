/**
 * AI_CAPTURE: extracts structured data from text with an LLM into variables. The model answers JSON with one
 * property per capture variable (structured output); the output is `{ captures }`, values it did not find left out.
 */
import { aiForNode, captureVariablesOf, extractCaptures, text } from './support/ai-node-support.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

const executeAiCapture: NodeExecutor = async (input, context) => {
  const variables = captureVariablesOf(input.data);
  if (!variables.length) throw new NodeError('AI_CAPTURE needs at least one capture variable (captureVariables)');
  const { session, model } = await aiForNode(input, context, 'TEXT');
  const captures = await extractCaptures(session, model, variables, text(input.data.instructions), text(input.data.prompt));
  return { output: { captures }, aiCredits: session.credits };
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
