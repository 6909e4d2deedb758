/** Workflows: metadata, status, soft delete, the draft snapshot and publishing. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import { Account, GraphSnapshot, Workflow, type WorkflowStatus } from '../entities/index.js';
import { newObjectId } from '../tables/object-id.js';
import { subscriptionOf, unsubscribeAll, type TriggerProvider } from './external-triggers.js';

export type WorkflowListStatus = 'ACTIVE' | 'DELETED' | 'DRAFT';

export interface WorkflowInput {
  name: string;
  description?: string | null;
  status?: WorkflowStatus;
}

export type WorkflowPatch = Partial<WorkflowInput>;

/** List item: every field of SPEC.md present, nullable ones as null. */
export function workflowListItem(w: Workflow) {
  return {
    id: w.id,
    name: w.name,
    description: w.description ?? null,
    status: w.deletedAt ? 'DELETED' : w.status,
    triggerType: w.triggerType ?? null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    runsCount: w.runsCount,
    runsFailedCount: w.runsFailedCount,
    lastRunDate: w.lastRunDate ? w.lastRunDate.toISOString() : null,
  };
}

export function workflowDetail(w: Workflow, graph?: Graph) {
  return {
    ...workflowListItem(w),
    liveSnapshotId: w.liveSnapshotId ?? null,
    draftSnapshotId: w.draftSnapshotId,
    ...(graph ? { nodes: graph.nodes } : {}),
  };
}

export async function listWorkflows(em: EntityManager, accountId: number, status?: WorkflowListStatus): Promise<Workflow[]> {
  const where =
    status === 'DELETED'
      ? { account: accountId, deletedAt: { $ne: null } }
      : status
        ? { account: accountId, deletedAt: null, status }
        : { account: accountId, deletedAt: null };
  return em.find(Workflow, where, { orderBy: { id: 'asc' } });
}

/** A live (not deleted) workflow of the account, or 404. */
export async function findWorkflow(em: EntityManager, accountId: number, id: number): Promise<Workflow> {
  const workflow = await em.findOne(Workflow, { id, account: accountId, deletedAt: null });
  if (!workflow) throw new NotFoundError(`Workflow ${id} not found`);
  return workflow;
}

export async function createWorkflow(em: EntityManager, accountId: number, input: WorkflowInput): Promise<Workflow> {
  return em.transactional(async (tx) => {
    const account = tx.getReference(Account, accountId);
    const draftSnapshotId = newObjectId();
    const workflow = tx.create(Workflow, {
      account,
      name: input.name.trim(),
      description: input.description ?? null,
      status: input.status ?? 'DRAFT',
      draftSnapshotId,
    });
    await tx.flush();
    tx.create(GraphSnapshot, { id: draftSnapshotId, account, ownerType: 'WORKFLOW', ownerId: String(workflow.id), kind: 'DRAFT' });
    await tx.flush();
    return workflow;
  });
}

export async function updateWorkflow(em: EntityManager, workflow: Workflow, patch: WorkflowPatch): Promise<Workflow> {
  if (patch.name !== undefined) workflow.name = patch.name.trim();
  if (patch.description !== undefined) workflow.description = patch.description;
  if (patch.status !== undefined) workflow.status = patch.status;
  await em.flush();
  return workflow;
}

/**
 * Soft delete: the workflow stops receiving events and is listed only under status DELETED. The trigger
 * subscriptions of the EXTERNAL_TRIGGER nodes of its draft and live graphs are removed in the same transaction:
 * if the provider cannot remove one, the workflow is not deleted.
 */
export async function deleteWorkflow(em: EntityManager, workflow: Workflow, triggers?: TriggerProvider): Promise<void> {
  const snapshotIds = [workflow.draftSnapshotId, workflow.liveSnapshotId].filter((id): id is string => !!id);
  const snapshots = await em.find(GraphSnapshot, { id: { $in: snapshotIds } });
  const subscriptions = [...new Set(snapshots.flatMap((s) => s.nodes.map(subscriptionOf)).filter((id): id is string => !!id))];
  await em.transactional(async (tx) => {
    workflow.deletedAt = new Date();
    workflow.status = 'DRAFT';
    await tx.flush();
    await unsubscribeAll(triggers, subscriptions, 'The workflow cannot be deleted with its trigger subscriptions', 'workflowId');
  });
}

export async function draftGraph(em: EntityManager, workflow: Workflow): Promise<{ snapshot: GraphSnapshot; graph: Graph }> {
  const snapshot = await em.findOneOrFail(GraphSnapshot, { id: workflow.draftSnapshotId });
  return { snapshot, graph: { nodes: snapshot.nodes, edges: snapshot.edges } };
}

/** Promotes the draft to a new immutable live snapshot; runs execute live snapshots only. */
export async function publishWorkflow(em: EntityManager, workflow: Workflow): Promise<GraphSnapshot> {
  return em.transactional(async (tx) => {
    const { graph } = await draftGraph(tx, workflow);
    const live = tx.create(GraphSnapshot, {
      id: newObjectId(),
      account: workflow.account,
      ownerType: 'WORKFLOW',
      ownerId: String(workflow.id),
      kind: 'LIVE',
      nodes: graph.nodes,
      edges: graph.edges,
    });
    workflow.liveSnapshotId = live.id;
    await tx.flush();
    return live;
  });
}

export async function listSnapshots(em: EntityManager, workflow: Workflow) {
  const snapshots = await em.find(GraphSnapshot, { ownerType: 'WORKFLOW', ownerId: String(workflow.id) }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return snapshots.map((s) => ({
    id: s.id,
    kind: s.kind,
    isLive: s.id === workflow.liveSnapshotId,
    nodeCount: s.nodes.length,
    createdAt: s.createdAt.toISOString(),
  }));
}
