/** What the graph routes (graph.routes.ts, graph-versions.routes.ts) know of an owner of a graph, and who publishes. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyIdentity } from '../../db/accounts/api-keys.service.js';
import type { GraphEditDeps } from '../../db/automations/graph.service.js';
import type { GraphOwner } from '../../db/automations/graph-owner.js';
import type { GraphSnapshot, PublishedBy } from '../../db/automations/graph-snapshot.entity.js';
import type { Publication } from '../../db/automations/snapshots.js';
import type { VersionOwner } from '../../db/automations/versions.service.js';
import type { RouteResponse } from '../route-registry.js';
import type { JsonSchema } from '../validation.js';
import type { RouteOwner } from './route-owner.js';

/** Who publishes: the request's key and its user. */
export const publisherOf = (auth: KeyIdentity): PublishedBy => ({
  keyId: auth.keyId,
  userId: auth.user?.id ?? null,
  email: auth.user?.email ?? null,
});

/** An owner of a graph (a workflow, a flow) as its graph routes see it. */
export interface GraphRoutesOwner<P, Doc extends { draftSnapshotId: string; liveSnapshotId?: string | null }> extends RouteOwner<P, Doc> {
  /** Schema of the path parameters with `nodeId`. */
  nodeParams: JsonSchema;
  /** The graph owner and the dependencies of an edit of the owner's draft (`publication`: who edits, should it publish). */
  editOf(doc: Doc, publication: Publication): { owner: GraphOwner; deps: GraphEditDeps };
  /** The owner as its snapshots name it. */
  versionsOf(doc: Doc): Pick<VersionOwner, 'type' | 'id'>;
  /** The body schema of a node. */
  node: JsonSchema;
  /** Promotes the draft to a new live snapshot, the owner's next version. */
  publish(em: EntityManager, doc: Doc, publication: Publication): Promise<GraphSnapshot>;
  /** The owner as the publish route answers it. */
  view(doc: Doc): unknown;
  snapshots(em: EntityManager, doc: Doc): Promise<unknown[]>;
  /** What the summaries say of this owner. */
  summaries: { addNode: string; updateNode: string; deleteNode: string; publish: string };
  /** The answers of the publish route. */
  published: Record<number, RouteResponse>;
}
