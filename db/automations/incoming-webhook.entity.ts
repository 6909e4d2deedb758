import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/**
 * An incoming webhook: external systems POST JSON to `{base_url}/webhooks/{id}`; each accepted call is an
 * INCOMING_WEBHOOK outbox event. The access token is shown once; only its SHA-256 hash and a short prefix are kept.
 */
export class IncomingWebhook {
  /** `wh_` + 24 random letters and digits. */
  id!: string;
  account!: Account;
  name!: string;
  description?: string | null;
  /** When false, calls are answered 404 and nothing is recorded. */
  isActive: Opt<boolean> = true;
  /** When true, callers must send the access token as `Authorization: Bearer <token>`. */
  useAuthentication: Opt<boolean> = true;
  /** SHA-256 hex of the access token; null when useAuthentication is false. */
  tokenHash?: string | null;
  /** First characters of the access token, so operators can tell tokens apart. */
  tokenPrefix?: string | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const IncomingWebhookSchema = new EntitySchema<IncomingWebhook>({
  class: IncomingWebhook,
  tableName: 'incoming_webhooks',
  checks: [{ name: 'incoming_webhooks_token_check', expression: '(not use_authentication) or token_hash is not null' }],
  indexes: [{ name: 'incoming_webhooks_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    isActive: { type: 'boolean', default: true },
    useAuthentication: { type: 'boolean', default: true },
    tokenHash: { type: 'text', nullable: true },
    tokenPrefix: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
