import { Migration } from '@mikro-orm/migrations';

/**
 * The index of trigger subscriptions (filled with the EXTERNAL_TRIGGER nodes the drafts of live workflows already
 * hold), the receipts of accepted trigger deliveries, and the per-number Cloud API settings of messaging numbers.
 */
export class Migration20261123133017_provider_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "trigger_subscriptions" ("id" text not null, "account_id" int not null, "workflow_id" int not null, "node_id" text not null, "provider_subscription_id" text not null, "created_at" timestamptz not null, constraint "trigger_subscriptions_pkey" primary key ("id"));`);
    this.addSql(`create index "trigger_subscriptions_workflow_index" on "trigger_subscriptions" ("workflow_id");`);
    this.addSql(`alter table "trigger_subscriptions" add constraint "trigger_subscriptions_provider_subscription_id_unique" unique ("provider_subscription_id");`);
    this.addSql(`alter table "trigger_subscriptions" add constraint "trigger_subscriptions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "trigger_subscriptions" add constraint "trigger_subscriptions_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`);
    this.addSql(`insert into "trigger_subscriptions" ("id", "account_id", "workflow_id", "node_id", "provider_subscription_id", "created_at")
      select distinct on (n.node->'data'->>'connectedAccountTriggerId')
             'tsub_' || replace(gen_random_uuid()::text, '-', ''), w.account_id, w.id, n.node->>'nodeId', n.node->'data'->>'connectedAccountTriggerId', now()
        from "workflows" w join "graph_snapshots" s on s.id = w.draft_snapshot_id
             cross join lateral jsonb_array_elements(s.nodes) as n(node)
       where w.deleted_at is null and n.node->>'type' = 'TRIGGER' and n.node->'data'->>'triggerType' = 'EXTERNAL_TRIGGER'
         and coalesce(n.node->'data'->>'connectedAccountTriggerId', '') <> '';`);
    this.addSql(`create table "trigger_delivery_receipts" ("signature" text not null, "subscription_id" text not null, "event_id" text null, "received_at" timestamptz not null, constraint "trigger_delivery_receipts_pkey" primary key ("signature"));`);
    this.addSql(`create index "trigger_delivery_receipts_received_at_index" on "trigger_delivery_receipts" ("received_at");`);
    this.addSql(`alter table "messaging_numbers" add column "cloud_api_url" text null, add column "cloud_api_token_sealed" text null, add column "cloud_api_token_hint" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "trigger_subscriptions" cascade;`);
    this.addSql(`drop table if exists "trigger_delivery_receipts" cascade;`);
    this.addSql(`alter table "messaging_numbers" drop column "cloud_api_url", drop column "cloud_api_token_sealed", drop column "cloud_api_token_hint";`);
  }
}
