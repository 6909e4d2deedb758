/** DATA_TRANSFORMER: reshapes data as a prompt says; the output is the model's answer, parsed when it is JSON. */
import { aiForNode, parsedOrText, text } from './support/ai-node-support.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeExecutor, type NodeModule } from './node-module.js';

const SYSTEM =
  'You transform data as the user asks. Answer with the transformed data only, without explanations: ' +
  'JSON when the result is structured, plain text otherwise.';

const executeDataTransformer: NodeExecutor = async (input, context) => {
  const { session, model } = await aiForNode(input, context, 'TEXT');
  const { content } = await session.chat(model, {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: text(input.data.prompt) },
    ],
  });
  return { output: parsedOrText(content), aiCredits: session.credits };
};

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
  execute: executeDataTransformer,
};
