import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { GraphEdge, GraphNode } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';

/** A version of a flow's or workflow's graph: the owner's draft (mutable) or a published live copy (immutable). */
export class GraphSnapshot {
  /** 24-hex object identifier. */
  id!: string;
  account!: Account;
  ownerType!: 'WORKFLOW' | 'FLOW';
  ownerId!: string;
  kind!: 'DRAFT' | 'LIVE';
  nodes: Opt<GraphNode[]> = [];
  edges: Opt<GraphEdge[]> = [];
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const GraphSnapshotSchema = new EntitySchema<GraphSnapshot>({
  class: GraphSnapshot,
  tableName: 'graph_snapshots',
  indexes: [{ name: 'graph_snapshots_owner_index', properties: ['ownerType', 'ownerId'] }],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    ownerType: { type: 'text' },
    ownerId: { type: 'text' },
    kind: { type: 'text' },
    nodes: { type: 'json' },
    edges: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
