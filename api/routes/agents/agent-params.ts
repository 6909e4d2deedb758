/** Path parameter schemas shared by the /agents routes. */
import type { JsonSchema } from '../../validation.js';

const agentId = { type: 'string', minLength: 1, maxLength: 100, description: 'Agent UUID' };
const intId = { type: 'integer', minimum: 1, maximum: 2147483647 };

/** `{ agentId }` plus integer ids (`flowId`, `variableId`, …) and string ids (`nodeId`, `channel`, …). */
export function agentParams(ints: string[] = [], strings: string[] = []): JsonSchema {
  return {
    type: 'object',
    required: ['agentId', ...ints, ...strings],
    properties: {
      agentId,
      ...Object.fromEntries(ints.map((p) => [p, intId])),
      ...Object.fromEntries(strings.map((p) => [p, { type: 'string', minLength: 1, maxLength: 100 }])),
    },
  };
}

export type AgentId = { agentId: string };

/** The lock of every document of one agent (its settings, flows, graphs, variables, intents): see `RouteSpec.lock`. */
export const agentLock = ({ agentId }: AgentId): string => `agent:${agentId.toLowerCase()}`;
