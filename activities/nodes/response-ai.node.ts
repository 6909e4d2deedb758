/**
 * RESPONSE_AI (flows): waits for the user's free-text answer and captures it into agent variables, guided by
 * `instructions`. Runs with the conversation runtime.
 */
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

export const responseAiNode: NodeModule = {
  type: 'RESPONSE_AI',
  scopes: ['flow'],
  summary: "Captures the user's free-text answer into agent variables",
  data: {
    properties: {
      instructions: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      assistantId: { type: ['string', 'null'], description: 'An agent of the account (UUID)' },
      captureVariables: CAPTURE_VARIABLES,
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['instructions'],
  captures: 'captureVariables',
  checks: [modelCheck('TEXT'), checkCaptureVariables],
};
