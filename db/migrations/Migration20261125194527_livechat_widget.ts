import { Migration } from '@mikro-orm/migrations';

/**
 * The livechat widget. Agents had a widget secret and an HMAC secret kept only as SHA-256 hashes, which nothing can
 * use: every agent gets a random key that signs its visitors' session tokens instead, and an identity secret that
 * stays unset until rotated (it is sealed, so it can verify `userHash`). Themes gain the text the widget shows when
 * the agent is offline; livechat settings gain `allowedOrigins` (empty: any site).
 */
export class Migration20261125194527_livechat_widget extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "agents" add column "widget_session_key" text null, add column "identity_secret_sealed" text null;`);
    this.addSql(
      `update "agents" set "widget_session_key" = encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'hex');`,
    );
    this.addSql(`alter table "agents" alter column "widget_session_key" set not null;`);
    this.addSql(`alter table "agents" drop column "widget_secret_hash", drop column "hmac_secret_hash";`);

    this.addSql(`alter table "conversations" add column "visitor_id" text null, add column "contact_name" text null, add column "contact_email" text null;`);
    this.addSql(`create index "conversations_agent_visitor_index" on "conversations" ("agent_id", "visitor_id");`);

    this.addSql(`alter table "conversation_messages" add column "metadata" jsonb null;`);

    this.addSql(
      `update "agent_configs" set "values" = "values" || '{"offlineMessage": "We are away right now. Please come back later."}'::jsonb where "kind" = 'THEME' and not ("values" ? 'offlineMessage');`,
    );
    this.addSql(
      `update "agent_configs" set "values" = "values" || '{"allowedOrigins": []}'::jsonb where "kind" = 'CHANNEL:livechat' and not ("values" ? 'allowedOrigins');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agents" drop column "identity_secret_sealed";`);
    this.addSql(`alter table "agents" rename column "widget_session_key" to "widget_secret_hash";`);
    this.addSql(`alter table "agents" add column "hmac_secret_hash" text not null default '';`);

    this.addSql(`drop index "conversations_agent_visitor_index";`);
    this.addSql(`alter table "conversations" drop column "visitor_id", drop column "contact_name", drop column "contact_email";`);

    this.addSql(`alter table "conversation_messages" drop column "metadata";`);
  }

}
