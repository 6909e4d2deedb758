/**
 * Versions of a flow's or a workflow's graph: every publish makes one (snapshots.ts, `promoteDraft`), numbered from 1
 * per owner. Listed newest first, read with their graph, compared (lib/graph/graph-diff.ts), and restored: the
 * version's graph becomes the draft again, which the owner then publishes as its next version.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { diffGraphs, type GraphDiff } from '../../lib/graph/graph-diff.js';
import type { Graph } from '../../lib/graph/graph.js';
import { GraphSnapshot } from './graph-snapshot.entity.js';
import { draftGraph, type SnapshotOwnerType } from './snapshots.js';
import { query, sqlOf } from '../tables/table-lookups.js';

/** The owner of versions as its snapshots name it. */
export interface VersionOwner {
  type: SnapshotOwnerType;
  id: string;
  liveSnapshotId?: string | null;
}

export function versionView(s: GraphSnapshot, owner: VersionOwner) {
  return {
    version: s.version!,
    snapshotId: s.id,
    isLive: s.id === owner.liveSnapshotId,
    message: s.message ?? null,
    publishedBy: s.publishedBy ?? null,
    nodeCount: s.nodes.length,
    createdAt: s.createdAt.toISOString(),
  };
}

export async function listVersions(em: EntityManager, owner: VersionOwner) {
  const versions = await em.find(
    GraphSnapshot,
    { ownerType: owner.type, ownerId: owner.id, kind: 'LIVE', version: { $ne: null } },
    { orderBy: { version: 'desc' } },
  );
  return versions.map((s) => versionView(s, owner));
}

/** Version `n` of the owner, or 404. */
export async function findVersion(em: EntityManager, owner: VersionOwner, n: number): Promise<GraphSnapshot> {
  const version = await em.findOne(GraphSnapshot, { ownerType: owner.type, ownerId: owner.id, kind: 'LIVE', version: n });
  if (!version) throw new NotFoundError(`Version ${n} not found`);
  return version;
}

export const graphOf = (s: GraphSnapshot): Graph => ({ nodes: s.nodes, edges: s.edges });

export async function versionDetail(em: EntityManager, owner: VersionOwner, n: number) {
  const version = await findVersion(em, owner, n);
  return { ...versionView(version, owner), ...graphOf(version) };
}

/** What changed from version `from` to version `to` (either may be the later one). */
export async function diffVersions(
  em: EntityManager,
  owner: VersionOwner,
  from: number,
  to: number,
): Promise<{ from: number; to: number } & GraphDiff> {
  const [before, after] = await Promise.all([
    findVersion(em, owner, from).catch(notFoundAt('from', from)),
    findVersion(em, owner, to).catch(notFoundAt('to', to)),
  ]);
  return { from, to, ...diffGraphs(graphOf(before), graphOf(after)) };
}

/** A missing version named in the query is a 404 that says which parameter named it. */
const notFoundAt = (field: string, n: number) => (error: unknown) => {
  if (error instanceof NotFoundError) throw new NotFoundError(`Version ${n} (query.${field}) not found`);
  throw error;
};

/** Makes version `n`'s graph the owner's draft again (not published: the caller publishes it); answers the graph. */
export async function restoreDraft(em: EntityManager, owner: VersionOwner & { draftSnapshotId: string }, n: number): Promise<Graph> {
  const version = await findVersion(em, owner, n);
  const { snapshot } = await draftGraph(em, owner);
  snapshot.nodes = version.nodes;
  snapshot.edges = version.edges;
  await em.flush();
  return graphOf(version);
}

/** The version each run executed, by run id (runs of a draft, and runs recorded before versions, have none). */
export async function versionsOfRuns(em: EntityManager, runIds: string[]): Promise<Map<string, number | null>> {
  if (!runIds.length) return new Map();
  const rows = await query<{ id: string; version: number | null }>(
    sqlOf(em),
    `select r.id, s.version from workflow_runs r left join graph_snapshots s on s.id = r.snapshot_id where r.id = any(?)`,
    [runIds],
  );
  return new Map(rows.map((r) => [r.id, r.version]));
}
