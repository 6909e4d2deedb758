import { Migration } from '@mikro-orm/migrations';

/**
 * Agents on WhatsApp, Messenger and Instagram: connected numbers and social accounts gain their webhook verify token
 * (hashed), app secret and Send API token (sealed); conversations know the network account and person they are with
 * (one open conversation each); messages gain the network's id and their delivery status.
 */
export class Migration20261125223915_meta_channels extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "conversations" add column "network_account_id" text null, add column "network_user_id" text null;`);
    this.addSql(`create unique index "conversations_network_user_open_unique" on "conversations" ("agent_id", "channel", "network_account_id", "network_user_id") where "network_user_id" is not null and "status" <> 'ENDED';`);

    this.addSql(`alter table "conversation_messages" add column "external_id" text null, add column "delivery_status" text null, add column "delivery_error" text null;`);
    this.addSql(`create index "conversation_messages_external_index" on "conversation_messages" ("external_id") where "external_id" is not null;`);

    this.addSql(`alter table "messaging_numbers" add column "webhook_verify_token_hash" text null, add column "app_secret_sealed" text null, add column "app_secret_hint" text null;`);
    this.addSql(`create unique index "messaging_numbers_inbound_unique" on "messaging_numbers" ("phone_number_id") where "app_secret_sealed" is not null;`);

    this.addSql(`alter table "social_accounts" add column "messaging_id" text null, add column "assistant_id" uuid null, add column "webhook_verify_token_hash" text null, add column "app_secret_sealed" text null, add column "app_secret_hint" text null, add column "access_token_sealed" text null, add column "access_token_hint" text null, add column "send_api_url" text null;`);
    this.addSql(`create unique index "social_accounts_messaging_unique" on "social_accounts" ("platform", "messaging_id") where "messaging_id" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "conversations_network_user_open_unique";`);
    this.addSql(`alter table "conversations" drop column "network_account_id", drop column "network_user_id";`);

    this.addSql(`drop index "conversation_messages_external_index";`);
    this.addSql(`alter table "conversation_messages" drop column "external_id", drop column "delivery_status", drop column "delivery_error";`);

    this.addSql(`drop index "messaging_numbers_inbound_unique";`);
    this.addSql(`alter table "messaging_numbers" drop column "webhook_verify_token_hash", drop column "app_secret_sealed", drop column "app_secret_hint";`);

    this.addSql(`drop index "social_accounts_messaging_unique";`);
    this.addSql(`alter table "social_accounts" drop column "messaging_id", drop column "assistant_id", drop column "webhook_verify_token_hash", drop column "app_secret_sealed", drop column "app_secret_hint", drop column "access_token_sealed", drop column "access_token_hint", drop column "send_api_url";`);
  }

}
