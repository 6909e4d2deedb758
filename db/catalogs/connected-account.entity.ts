import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

export const CONNECTED_ACCOUNT_STATUSES = ['ACTIVE', 'EXPIRED'] as const;

export type ConnectedAccountStatus = (typeof CONNECTED_ACCOUNT_STATUSES)[number];

/**
 * A third-party account (a mailbox, a workspace, a CRM portal) connected to an account. Its id is the
 * `connectedAccountId` of EXTERNAL_TRIGGER nodes and agent settings.
 */
export class ConnectedAccount {
  id!: number;
  account!: Account;
  /** Uppercase toolkit: GMAIL, SLACK, HUBSPOT, GITHUB, … */
  toolkit!: string;
  label!: string;
  /** The integration provider's id of the connection. */
  externalId!: string;
  status: Opt<ConnectedAccountStatus> = 'ACTIVE';
  createdAt: Opt<Date> = new Date();
}

export const ConnectedAccountSchema = new EntitySchema<ConnectedAccount>({
  class: ConnectedAccount,
  tableName: 'connected_accounts',
  checks: [{ name: 'connected_accounts_status_check', expression: "status in ('ACTIVE', 'EXPIRED')" }],
  indexes: [{ name: 'connected_accounts_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    toolkit: { type: 'text' },
    label: { type: 'text' },
    externalId: { type: 'text' },
    status: { type: 'text', default: 'ACTIVE' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
