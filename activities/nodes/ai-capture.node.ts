/** AI_CAPTURE: extracts structured data from text with an LLM into variables. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

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
};
