import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Agent } from './agent.entity.js';

export type FlowStatus = 'ACTIVE' | 'DRAFT' | 'PAUSED' | 'ARCHIVED';

/** A conversation graph of one agent; its graph lives in snapshots like a workflow's (one draft, immutable live ones). */
export class Flow {
  id!: number;
  account!: Account;
  agent!: Agent;
  name!: string;
  description?: string | null;
  status: Opt<FlowStatus> = 'DRAFT';
  /** The agent's entry flow (named Start, holding the START node); it cannot be deleted. */
  isDefault: Opt<boolean> = false;
  /** Conversation turns run by the flow (0 until the conversation runtime counts them). */
  runCount: Opt<number> = 0;
  draftSnapshotId!: string;
  liveSnapshotId?: string | null;
  deletedAt?: Date | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const FlowSchema = new EntitySchema<Flow>({
  class: Flow,
  tableName: 'flows',
  indexes: [{ name: 'flows_agent_index', properties: ['agent'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    agent: { kind: 'm:1', entity: () => Agent, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    status: { type: 'text', default: 'DRAFT' },
    isDefault: { type: 'boolean', default: false },
    runCount: { type: 'integer', default: 0 },
    draftSnapshotId: { type: 'text' },
    liveSnapshotId: { type: 'text', nullable: true },
    deletedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
