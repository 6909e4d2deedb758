/** DATA_TRANSFORMER: reshapes data as a prompt says; the output is the model's answer, parsed when it is JSON. */
import { parsedOrText, text } from './support/ai-node-support.js';
import { askAi, lastReply, nodeModel } from './support/ai-steps.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';

const SYSTEM =
  'You transform data as the user asks. Answer with the transformed data only, without explanations: ' +
  'JSON when the result is structured, plain text otherwise.';

const dataTransformerSteps: AiNodeSteps<null> = {
  async prepare(input, context) {
    const model = await nodeModel(input, context, 'TEXT');
    const messages = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: text(input.data.prompt) },
    ];
    return askAi(model, { kind: 'chat', messages }, null);
  },
  async finish(_input, _context, replies) {
    return { output: parsedOrText(lastReply(replies).content) };
  },
};

export const dataTransformerNode: NodeModule = {
  type: 'DATA_TRANSFORMER',
  scopes: ['automation'],
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
  ai: dataTransformerSteps,
};
