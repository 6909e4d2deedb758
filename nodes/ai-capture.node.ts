/**
 * AI_CAPTURE: extracts structured data from text with an LLM into variables. The model answers JSON with one
 * property per capture variable (structured output); the output is `{ captures }`, values it did not find left out.
 */
import { askCaptures, captureVariablesOf, readCaptures, text } from './support/ai-node-support.js';
import { nodeModel, lastReply, type StructuredState } from './support/ai-steps.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

const aiCaptureSteps: AiNodeSteps<StructuredState> = {
  async prepare(input, context) {
    const variables = captureVariablesOf(input.data);
    if (!variables.length) throw new NodeError('AI_CAPTURE needs at least one capture variable (captureVariables)');
    const model = await nodeModel(input, context, 'TEXT');
    return askCaptures(model, variables, text(input.data.instructions), text(input.data.prompt));
  },
  async finish(_input, _context, replies, state) {
    const read = readCaptures(state, lastReply(replies));
    return 'captures' in read ? { output: { captures: read.captures } } : read;
  },
};

export const aiCaptureNode: NodeModule = {
  type: 'AI_CAPTURE',
  scopes: ['automation'],
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
  ai: aiCaptureSteps,
};
