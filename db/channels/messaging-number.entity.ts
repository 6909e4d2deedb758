import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/** A business phone number of the messaging channel connected to an account. */
export class MessagingNumber {
  id!: number;
  account!: Account;
  /** E.164, e.g. +14155550123. */
  phoneNumber!: string;
  displayName!: string;
  /** The provider's business number id; SEND_MESSAGING_MESSAGE nodes name it as `phoneNumberId`. Unique per account. */
  phoneNumberId!: string;
  /** UUID of the agent the number belongs to; a node may only send from a number that has one. */
  assistantId?: string | null;
  canSendMessages: Opt<boolean> = true;
  /**
   * The Cloud API this number sends through, set with the admin CLI (`messaging-settings`); null: the worker's
   * MESSAGING_API_URL and MESSAGING_API_TOKEN.
   */
  cloudApiUrl?: string | null;
  /** The number's Cloud API token, encrypted with SETTINGS_ENCRYPTION_KEY (AES-256-GCM, `lib/secret-box.ts`). */
  cloudApiTokenSealed?: string | null;
  /** The token's last 4 characters, shown instead of the token. */
  cloudApiTokenHint?: string | null;
  /**
   * Inbound messages (admin CLI `channel-settings`): the SHA-256 of the webhook verify token Meta's handshake sends, and
   * the Meta app's secret that signs deliveries (sealed: it is used again for each HMAC). A number with a secret
   * receives messages; its phone-number id is then unique across accounts.
   */
  webhookVerifyTokenHash?: string | null;
  appSecretSealed?: string | null;
  appSecretHint?: string | null;
  createdAt: Opt<Date> = new Date();
}

export const MessagingNumberSchema = new EntitySchema<MessagingNumber>({
  class: MessagingNumber,
  tableName: 'messaging_numbers',
  uniques: [{ name: 'messaging_numbers_account_phone_number_id_unique', properties: ['account', 'phoneNumberId'] }],
  indexes: [
    { name: 'messaging_numbers_account_index', properties: ['account'] },
    {
      name: 'messaging_numbers_inbound_unique',
      expression:
        'create unique index "messaging_numbers_inbound_unique" on "messaging_numbers" ("phone_number_id") where "app_secret_sealed" is not null',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    phoneNumber: { type: 'text' },
    displayName: { type: 'text' },
    phoneNumberId: { type: 'text' },
    assistantId: { type: 'uuid', nullable: true },
    canSendMessages: { type: 'boolean', default: true },
    cloudApiUrl: { type: 'text', nullable: true },
    cloudApiTokenSealed: { type: 'text', nullable: true },
    cloudApiTokenHint: { type: 'text', nullable: true },
    webhookVerifyTokenHash: { type: 'text', nullable: true },
    appSecretSealed: { type: 'text', nullable: true },
    appSecretHint: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
