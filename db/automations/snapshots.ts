/**
 * Graph snapshots of workflows and flows: one mutable draft per owner and the immutable live copies publishing makes
 * (DESIGN.md, Publishing). Runs and conversations execute live snapshots.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Graph } from '../../lib/graph/graph.js';
import { GraphSnapshot } from './graph-snapshot.entity.js';
import type { Account } from '../accounts/account.entity.js';
import { newObjectId } from '../tables/object-id.js';

/** A workflow or a flow, as its snapshots know it. */
export interface SnapshotOwner {
  account: Account;
  draftSnapshotId: string;
  liveSnapshotId?: string | null;
}

export type SnapshotOwnerType = GraphSnapshot['ownerType'];

/** The draft snapshot of a workflow or a flow, and its graph. */
export async function draftGraph(em: EntityManager, owner: { draftSnapshotId: string }): Promise<{ snapshot: GraphSnapshot; graph: Graph }> {
  const snapshot = await em.findOneOrFail(GraphSnapshot, { id: owner.draftSnapshotId });
  return { snapshot, graph: { nodes: snapshot.nodes, edges: snapshot.edges } };
}

/** A new draft snapshot holding `graph` (empty by default); not flushed. */
export function newDraft(
  em: EntityManager,
  account: Account,
  ownerType: SnapshotOwnerType,
  ownerId: string,
  id: string,
  graph?: Graph,
): GraphSnapshot {
  return em.create(GraphSnapshot, { id, account, ownerType, ownerId, kind: 'DRAFT', ...(graph ? { nodes: graph.nodes, edges: graph.edges } : {}) });
}

/** Copies the draft into a new immutable live snapshot and makes it the owner's live one (not flushed). */
export async function promoteDraft(tx: EntityManager, owner: SnapshotOwner, ownerType: SnapshotOwnerType, ownerId: string): Promise<GraphSnapshot> {
  const { graph } = await draftGraph(tx, owner);
  const live = tx.create(GraphSnapshot, {
    id: newObjectId(),
    account: owner.account,
    ownerType,
    ownerId,
    kind: 'LIVE',
    nodes: graph.nodes,
    edges: graph.edges,
  });
  owner.liveSnapshotId = live.id;
  return live;
}

/** The owner's draft and live snapshots, newest first. */
export async function listSnapshots(em: EntityManager, owner: SnapshotOwner, ownerType: SnapshotOwnerType, ownerId: string) {
  const snapshots = await em.find(GraphSnapshot, { ownerType, ownerId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return snapshots.map((s) => ({
    id: s.id,
    kind: s.kind,
    isLive: s.id === owner.liveSnapshotId,
    nodeCount: s.nodes.length,
    createdAt: s.createdAt.toISOString(),
  }));
}
