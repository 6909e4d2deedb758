/**
 * CONDITIONAL_ROUTING: branches on conditions (evaluated by AI unless `useAi` is false). Each condition's `id` is
 * an output handle; `default` is taken when none matches. Runs once the AI gateway lands.
 */
import { modelCheck, routesWithAi } from './checks/ai-model.check.js';
import { MODEL_FIELDS, type NodeModule } from './node-module.js';

/** The handles: one per condition (its `id`), and `default`. */
function conditionHandles(data: Record<string, unknown>): string[] {
  const conditions = Array.isArray(data.conditions) ? (data.conditions as { id?: unknown }[]) : [];
  return [...conditions.map((c) => c?.id).filter((id): id is string => typeof id === 'string' && id !== ''), 'default'];
}

export const conditionalRoutingNode: NodeModule = {
  type: 'CONDITIONAL_ROUTING',
  scopes: ['workflow', 'flow'],
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
};
