import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';

/**
 * A conversational agent. Its widget secret and HMAC secret (for identified-user tokens) are generated on create and
 * kept only as SHA-256 hashes: no response ever carries them.
 */
export class Agent {
  /** UUID. */
  id!: string;
  account!: Account;
  name!: string;
  description?: string | null;
  /** true: paused (not serving conversations); moved by `PUT /agents/{id}/deployment-status`. */
  isOffline: Opt<boolean> = true;
  widgetSecretHash!: string;
  hmacSecretHash!: string;
  deletedAt?: Date | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AgentSchema = new EntitySchema<Agent>({
  class: Agent,
  tableName: 'agents',
  indexes: [{ name: 'agents_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    isOffline: { type: 'boolean', default: true },
    widgetSecretHash: { type: 'text', hidden: true },
    hmacSecretHash: { type: 'text', hidden: true },
    deletedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
