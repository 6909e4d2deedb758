/**
 * References a saved graph holds to agents that were deleted since. Deleting an agent leaves the workflows whose
 * TRIGGER nodes name it as they are, firing for the other agents they name; a workflow's detail reports what is left.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Graph } from '../../lib/graph/graph.js';
import { existingAgentIds } from './resource-lookups.js';

/** One id of a node's data that names nothing anymore. */
export interface StaleReference {
  nodeId: string;
  path: string;
  id: string;
  message: string;
}

export async function staleAgentReferences(em: EntityManager, accountId: number, graph: Graph): Promise<StaleReference[]> {
  const named = graph.nodes.flatMap((node) => {
    const ids = node.data.triggeredByAgentIds;
    return Array.isArray(ids) ? ids.map((id, i) => ({ node, id, i })).filter((x): x is typeof x & { id: string } => typeof x.id === 'string') : [];
  });
  if (!named.length) return [];
  const live = await existingAgentIds(em, accountId, [...new Set(named.map((x) => x.id))]);
  return named
    .filter(({ id }) => !live.has(id))
    .map(({ node, id, i }) => ({
      nodeId: node.nodeId,
      path: `data.triggeredByAgentIds[${i}]`,
      id,
      message: `agent ${id} was deleted: the node fires for the other agents it names`,
    }));
}
