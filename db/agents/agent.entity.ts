import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/**
 * A conversational agent. Two secrets of its livechat widget live here and no response carries them: the key that
 * signs its visitors' session tokens (random, made on create) and its identity secret (`userHash` of identified
 * visitors), sealed with SETTINGS_ENCRYPTION_KEY because it must be used again, shown once when rotated.
 */
export class Agent {
  /** UUID. */
  id!: string;
  account!: Account;
  name!: string;
  description?: string | null;
  /** true: paused (not serving conversations); moved by `PUT /agents/{id}/deployment-status`. */
  isOffline: Opt<boolean> = true;
  /** HMAC-SHA256 key of the widget's session tokens (64 hex digits). */
  widgetSessionKey!: string;
  /** The identity secret sealed (lib/secret-box.ts); null until `POST .../identity-secret/rotate` makes one. */
  identitySecretSealed?: string | null;
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
    widgetSessionKey: { type: 'text', hidden: true },
    identitySecretSealed: { type: 'text', hidden: true, nullable: true },
    deletedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
