/**
 * Flows of an agent (SPEC.md, Flow): metadata and status, soft delete (never the default flow), and the draft and live
 * snapshots shared with workflows (`db/automations/snapshots.ts`); node and edge edits go through the graph service
 * with the flow's `GraphOwner` (flow-graph-owner.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';
import { Flow, type FlowStatus } from './flow.entity.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import type { Agent } from './agent.entity.js';
import { listSnapshots, newDraft, promoteDraft, type Publication } from '../automations/snapshots.js';
import { newObjectId } from '../tables/object-id.js';

export interface FlowInput {
  name: string;
  description?: string | null;
  status?: FlowStatus;
}

/** A flow without its nodes; `nodes` added when given (`includeNodes=true`). */
export function flowView(f: Flow, graph?: Graph) {
  return {
    id: f.id,
    name: f.name,
    description: f.description ?? null,
    status: f.status,
    runCount: f.runCount,
    assistantId: f.agent.id,
    isDefault: f.isDefault,
    liveSnapshotId: f.liveSnapshotId ?? null,
    draftSnapshotId: f.draftSnapshotId,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
    ...(graph ? { nodes: graph.nodes } : {}),
  };
}

export async function listFlows(em: EntityManager, agent: Agent): Promise<Flow[]> {
  return em.find(Flow, { agent, deletedAt: null }, { orderBy: { id: 'asc' } });
}

/** A live flow of the agent, or 404. */
export async function findFlow(em: EntityManager, agent: Agent, id: number): Promise<Flow> {
  const flow = await em.findOne(Flow, { id, agent, deletedAt: null });
  if (!flow) throw new NotFoundError(`Flow ${id} not found`);
  return flow;
}

/** Creates a flow with its draft snapshot (empty unless `graph` is given), in one transaction. */
export async function createFlow(
  em: EntityManager,
  agent: Agent,
  input: FlowInput,
  options: { isDefault?: boolean; graph?: Graph } = {},
): Promise<Flow> {
  return em.transactional(async (tx) => {
    const draftSnapshotId = newObjectId();
    const flow = tx.create(Flow, {
      account: agent.account,
      agent,
      name: input.name.trim(),
      description: input.description ?? null,
      status: input.status ?? 'DRAFT',
      isDefault: options.isDefault ?? false,
      draftSnapshotId,
    });
    await tx.flush();
    newDraft(tx, agent.account, 'FLOW', String(flow.id), draftSnapshotId, options.graph);
    await tx.flush();
    return flow;
  });
}

export async function updateFlow(em: EntityManager, flow: Flow, patch: Partial<FlowInput>): Promise<Flow> {
  if (patch.name !== undefined) flow.name = patch.name.trim();
  if (patch.description !== undefined) flow.description = patch.description;
  if (patch.status !== undefined) flow.status = patch.status;
  await em.flush();
  return flow;
}

/** Soft delete; the default flow, which every conversation starts in, cannot be deleted. */
export async function deleteFlow(em: EntityManager, flow: Flow): Promise<void> {
  if (flow.isDefault)
    throw new ConflictError(`Flow ${flow.id} is the agent's default flow, which every conversation starts in: it cannot be deleted`);
  flow.deletedAt = new Date();
  await em.flush();
}

/** Promotes the draft to a new immutable live snapshot, which conversations are served from. */
export async function publishFlow(em: EntityManager, flow: Flow, publication?: Publication): Promise<GraphSnapshot> {
  const live = await promoteDraft(em, flow, 'FLOW', String(flow.id), publication);
  await em.flush();
  return live;
}

export async function listFlowSnapshots(em: EntityManager, flow: Flow) {
  return listSnapshots(em, flow, 'FLOW', String(flow.id));
}

/** Where the nodes of the agent's flows (draft and live graphs) match `uses`: `flow "Start" node say_ai_1 (SAY_AI)`. */
export async function flowNodesWhere(em: EntityManager, agent: Agent, uses: (node: GraphNode) => boolean): Promise<string[]> {
  const flows = await listFlows(em, agent);
  const snapshotIds = flows.flatMap((f) => [f.draftSnapshotId, f.liveSnapshotId ?? []].flat());
  const snapshots = snapshotIds.length ? await em.find(GraphSnapshot, { id: { $in: snapshotIds } }) : [];
  const places = new Set<string>();
  for (const flow of flows) {
    for (const snapshot of snapshots.filter((s) => s.ownerId === String(flow.id))) {
      for (const node of snapshot.nodes.filter(uses)) places.add(`flow "${flow.name}" node ${node.nodeId} (${node.type})`);
    }
  }
  return [...places];
}
