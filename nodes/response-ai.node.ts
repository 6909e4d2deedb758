/**
 * RESPONSE_AI (flows): the conversation pauses here until the user answers; the answer's turn runs the node, which
 * captures values from the answer into agent variables, guided by `instructions` (the AI extracts them). Without an
 * AI provider, a node capturing one variable stores the whole answer in it; more variables need the AI.
 */
import { AI_NOT_CONFIGURED } from '../integrations/ai/ai-gateway.js';
import { askCaptures, captureVariablesOf, readCaptures, text } from './support/ai-node-support.js';
import { lastReply, nodeModel, type StructuredState } from './support/ai-steps.js';
import { conversationOf } from './support/conversation-io.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

const responseAiSteps: AiNodeSteps<StructuredState> = {
  async prepare(input, context) {
    const answer = conversationOf(input).message ?? '';
    const variables = captureVariablesOf(input.data);
    if (!variables.length) return { output: { answer, captures: {} } };
    if (!context.ai.provider) {
      if (variables.length === 1) return { output: { answer, captures: { [variables[0]!.name]: answer } } };
      throw new NodeError(`${AI_NOT_CONFIGURED} (this RESPONSE_AI captures ${variables.length} variables from the answer)`, 'AiNotConfigured');
    }
    const model = await nodeModel(input, context, 'TEXT');
    return askCaptures(model, variables, text(input.data.instructions), answer);
  },
  async finish(input, _context, replies, state) {
    const read = readCaptures(state, lastReply(replies));
    return 'captures' in read ? { output: { answer: conversationOf(input).message ?? '', captures: read.captures } } : read;
  },
};

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
  awaitsAnswer: true,
  checks: [modelCheck('TEXT'), checkCaptureVariables],
  ai: responseAiSteps,
};
