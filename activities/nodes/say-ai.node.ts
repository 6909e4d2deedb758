/** SAY_AI (flows): sends `message` to the user, or a message the AI writes from `prompt`. Runs with the conversation runtime. */
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

export const sayAiNode: NodeModule = {
  type: 'SAY_AI',
  scopes: ['flow'],
  summary: 'Sends a message to the user, as written or AI-generated from a prompt',
  data: {
    properties: {
      message: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable; the AI writes the message from it' },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['message', 'prompt'],
  checks: [modelCheck('TEXT')],
};
