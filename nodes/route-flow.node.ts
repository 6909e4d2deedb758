/**
 * ROUTE_FLOW (internal, in no graph): the AI chooses which flow a user message enters when training phrases
 * could not decide (a tie) or flows are entered by `agenticRouting`. The conversation workflow runs it as a node, so
 * its AI call is an activity like any other. No provider, or no flow fits: the message enters no flow.
 */
import { aiForNode } from './support/ai-node-support.js';
import type { NodeExecutor, NodeModule } from './node-module.js';

interface Candidate {
  flowId: number;
  nodeId: string;
  instruction: string;
}

const executeRouteFlow: NodeExecutor = async (input, context) => {
  const candidates = (input.data.candidates ?? []) as Candidate[];
  if (!context.ai.provider || !candidates.length) return { output: null };
  const { session, model } = await aiForNode(input, context, 'TEXT');
  const options = candidates.map((c, i) => `${i + 1}. ${c.instruction}`).join('\n');
  const { choice } = await session.structured<{ choice: number }>(
    model,
    [
      {
        role: 'system',
        content:
          'Decide which conversation flow the user message should enter. Options:\n' +
          `${options}\n\nAnswer with the number of the option that fits the message, or 0 when none does.`,
      },
      { role: 'user', content: String(input.data.message ?? '') },
    ],
    'route',
    { type: 'object', properties: { choice: { type: 'integer' } }, required: ['choice'], additionalProperties: false },
  );
  const chosen = candidates[choice - 1];
  return { output: chosen ? { flowId: chosen.flowId, nodeId: chosen.nodeId } : null, aiCredits: session.credits };
};

export const routeFlowNode: NodeModule = {
  type: 'ROUTE_FLOW',
  scopes: [],
  summary: 'Internal: the AI chooses the flow a user message enters',
  data: { properties: {} },
  handles: [],
  execute: executeRouteFlow,
};
