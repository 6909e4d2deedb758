/**
 * Graph snapshots of workflows and flows: one mutable draft per owner and the immutable live copies publishing makes
 * (DESIGN.md, Publishing). Runs and conversations execute live snapshots.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Graph } from '../../lib/graph/graph.js';
import { GraphSnapshot, type PublishedBy } from './graph-snapshot.entity.js';
import type { Account } from '../accounts/account.entity.js';
import { newObjectId } from '../tables/object-id.js';
import { query, sqlOf } from '../tables/table-lookups.js';

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

/** Who publishes, and why (each publish is a version). */
export interface Publication {
  by?: PublishedBy | null;
  message?: string | null;
}

/** The number the owner's next version takes: publishes of one owner hold its document lock, one after another. */
async function nextVersion(tx: EntityManager, ownerType: SnapshotOwnerType, ownerId: string): Promise<number> {
  const [row] = await query<{ last: number | null }>(
    sqlOf(tx),
    `select max(version) as last from graph_snapshots where owner_type = ? and owner_id = ?`,
    [ownerType, ownerId],
  );
  return (row?.last ?? 0) + 1;
}

/**
 * Copies the draft into a new immutable live snapshot, the owner's next version, and makes it the owner's live one
 * (not flushed).
 */
export async function promoteDraft(
  tx: EntityManager,
  owner: SnapshotOwner,
  ownerType: SnapshotOwnerType,
  ownerId: string,
  publication: Publication = {},
): Promise<GraphSnapshot> {
  const { graph } = await draftGraph(tx, owner);
  const live = tx.create(GraphSnapshot, {
    id: newObjectId(),
    account: owner.account,
    ownerType,
    ownerId,
    kind: 'LIVE',
    nodes: graph.nodes,
    edges: graph.edges,
    version: await nextVersion(tx, ownerType, ownerId),
    message: publication.message ?? null,
    publishedBy: publication.by ?? null,
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
