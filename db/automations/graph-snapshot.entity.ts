import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { GraphEdge, GraphNode } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';

/** Who published a version: the API key (null: a signed-in session), and its user (null for a GENERAL key). */
export interface PublishedBy {
  keyId: number | null;
  userId: number | null;
  email: string | null;
}

/**
 * A graph of a flow or a workflow: the owner's draft (mutable) or a published live copy (immutable). Every live copy
 * is a numbered version of its owner (1, 2, … in the order of publishing), with who published it and an optional
 * message (versions from before numbering have neither).
 */
export class GraphSnapshot {
  /** 24-hex object identifier. */
  id!: string;
  account!: Account;
  ownerType!: 'WORKFLOW' | 'FLOW';
  ownerId!: string;
  kind!: 'DRAFT' | 'LIVE';
  nodes: Opt<GraphNode[]> = [];
  edges: Opt<GraphEdge[]> = [];
  /** The version number of a live copy (null for the draft). */
  version?: number | null;
  message?: string | null;
  publishedBy?: PublishedBy | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const GraphSnapshotSchema = new EntitySchema<GraphSnapshot>({
  class: GraphSnapshot,
  tableName: 'graph_snapshots',
  indexes: [
    { name: 'graph_snapshots_owner_index', properties: ['ownerType', 'ownerId'] },
    {
      name: 'graph_snapshots_version_unique',
      expression:
        'create unique index "graph_snapshots_version_unique" on "graph_snapshots" ("owner_type", "owner_id", "version") where "version" is not null',
    },
  ],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    ownerType: { type: 'text' },
    ownerId: { type: 'text' },
    kind: { type: 'text' },
    nodes: { type: 'json' },
    edges: { type: 'json' },
    version: { type: 'integer', nullable: true },
    message: { type: 'text', nullable: true },
    publishedBy: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
