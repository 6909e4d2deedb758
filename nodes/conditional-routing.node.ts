/**
 * CONDITIONAL_ROUTING: branches on conditions (evaluated by AI unless `useAi` is false). Each condition's `id` is
 * an output handle; the first condition that holds is taken, `default` when none does. The AI answers the id of
 * that condition (or null) as structured output, so it can only choose among the node's handles.
 */
import { askStructured, lastReply, nodeModel, readStructured, type StructuredState } from './support/ai-steps.js';
import { modelCheck, routesWithAi } from './checks/ai-model.check.js';
import { MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';
import { plainConditionHolds } from './support/plain-condition.js';

interface Condition {
  id: string;
  expression: string;
}

const SYSTEM =
  'You route an automation. Read the numbered conditions and decide, in order, whether each one holds. ' +
  'Answer a JSON object whose conditionId is the id of the first condition that holds, or null when none holds.';

const conditionalRoutingSteps: AiNodeSteps<StructuredState> = {
  async prepare(input, context) {
    const conditions = (Array.isArray(input.data.conditions) ? input.data.conditions : [])
      .filter((c): c is Condition => typeof c?.id === 'string' && c.id !== '')
      .map((c) => ({ id: c.id, expression: typeof c.expression === 'string' ? c.expression : '' }));
    if (input.data.useAi === false || !conditions.length) {
      const chosen = conditions.find((c) => plainConditionHolds(c.expression))?.id ?? null;
      return { output: { conditionId: chosen }, handle: chosen ?? 'default' };
    }
    const model = await nodeModel(input, context, 'TEXT');
    const listed = conditions.map((c, i) => `${i + 1}. id "${c.id}": ${c.expression}`).join('\n');
    const schema = {
      type: 'object',
      properties: { conditionId: { type: ['string', 'null'], enum: [...conditions.map((c) => c.id), null] } },
      required: ['conditionId'],
      additionalProperties: false,
    };
    const messages = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: `Conditions:\n${listed}` },
    ];
    return askStructured(model, messages, 'route', schema);
  },
  async finish(_input, _context, replies, state) {
    const read = readStructured<{ conditionId: string | null }>(state, lastReply(replies));
    if (!('value' in read)) return read;
    return { output: read.value, handle: read.value.conditionId ?? 'default' };
  },
};

/** The handles: one per condition (its `id`), and `default`. */
function conditionHandles(data: Record<string, unknown>): string[] {
  const conditions = Array.isArray(data.conditions) ? (data.conditions as { id?: unknown }[]) : [];
  return [...conditions.map((c) => c?.id).filter((id): id is string => typeof id === 'string' && id !== ''), 'default'];
}

export const conditionalRoutingNode: NodeModule = {
  type: 'CONDITIONAL_ROUTING',
  scopes: ['automation', 'flow'],
  summary: 'Branches on conditions: an edge leaves from each condition id, and from default when none matches',
  data: {
    properties: {
      conditions: {
        type: ['array', 'null'],
        maxItems: 50,
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 100, description: 'The output handle of this condition' },
            expression: { type: 'string', description: 'Interpolable' },
          },
        },
      },
      useAi: { type: ['boolean', 'null'], description: 'false: plain rules without AI' },
      ...MODEL_FIELDS,
    },
  },
  handles: conditionHandles,
  interpolated: ['conditions[].expression'],
  checks: [modelCheck('TEXT', routesWithAi)],
  ai: conditionalRoutingSteps,
};
