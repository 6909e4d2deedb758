/** DATA_TRANSFORMER: reshapes data as a prompt says. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

export const dataTransformerNode: NodeModule = {
  type: 'DATA_TRANSFORMER',
  scopes: ['workflow'],
  summary: 'Reshapes data via a prompt; the output is the transformed data',
  data: {
    properties: {
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['prompt'],
  checks: [modelCheck('TEXT')],
};
