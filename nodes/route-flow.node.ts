/**
 * ROUTE_FLOW (internal, in no graph): the AI chooses which flow a user message enters when training phrases
 * could not decide (a tie) or flows are entered by `agenticRouting`. The conversation workflow runs it as a node, so
 * its AI call is an activity like any other. No provider, or no flow fits: the message enters no flow.
 */
import { askStructured, lastReply, nodeModel, readStructured, type StructuredState } from './support/ai-steps.js';
import type { AiNodeSteps, NodeModule } from './node-module.js';

interface Candidate {
  flowId: number;
  nodeId: string;
  instruction: string;
}

const candidatesOf = (data: Record<string, unknown>) => (data.candidates ?? []) as Candidate[];

const routeFlowSteps: AiNodeSteps<StructuredState> = {
  async prepare(input, context) {
    const candidates = candidatesOf(input.data);
    if (!context.ai.provider || !candidates.length) return { output: null };
    const model = await nodeModel(input, context, 'TEXT');
    const options = candidates.map((c, i) => `${i + 1}. ${c.instruction}`).join('\n');
    const messages = [
      {
        role: 'system' as const,
        content:
          'Decide which conversation flow the user message should enter. Options:\n' +
          `${options}\n\nAnswer with the number of the option that fits the message, or 0 when none does.`,
      },
      { role: 'user' as const, content: String(input.data.message ?? '') },
    ];
    const schema = { type: 'object', properties: { choice: { type: 'integer' } }, required: ['choice'], additionalProperties: false };
    return askStructured(model, messages, 'route', schema);
  },
  async finish(input, _context, replies, state) {
    const read = readStructured<{ choice: number }>(state, lastReply(replies));
    if (!('value' in read)) return read;
    const chosen = candidatesOf(input.data)[read.value.choice - 1];
    return { output: chosen ? { flowId: chosen.flowId, nodeId: chosen.nodeId } : null };
  },
};

export const routeFlowNode: NodeModule = {
  type: 'ROUTE_FLOW',
  scopes: [],
  summary: 'Internal: the AI chooses the flow a user message enters',
  data: { properties: {} },
  handles: [],
  ai: routeFlowSteps,
};
