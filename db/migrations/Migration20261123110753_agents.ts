import { Migration } from '@mikro-orm/migrations';

/** Agents: settings documents, flows, variables, intents, and the account's custom tools, playbooks and knowledge bases. */
export class Migration20261123110753_agents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "agents" ("id" uuid not null, "account_id" int not null, "name" text not null, "description" text null, "is_offline" boolean not null default true, "widget_secret_hash" text not null, "hmac_secret_hash" text not null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "agents_pkey" primary key ("id"));`);
    this.addSql(`create index "agents_account_index" on "agents" ("account_id");`);

    this.addSql(`create table "agent_configs" ("id" serial primary key, "agent_id" uuid not null, "kind" text not null, "values" jsonb not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "agent_configs" add constraint "agent_configs_agent_kind_unique" unique ("agent_id", "kind");`);

    this.addSql(`create table "agent_resources" ("id" serial primary key, "account_id" int not null, "kind" text not null, "name" text not null, "values" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint agent_resources_kind_check check (kind in ('CUSTOM_TOOL', 'PLAYBOOK', 'KNOWLEDGE_BASE')));`);
    this.addSql(`create index "agent_resources_account_kind_index" on "agent_resources" ("account_id", "kind");`);

    this.addSql(`create table "agent_variables" ("id" serial primary key, "agent_id" uuid not null, "name" text not null, "description" text not null default '', "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "agent_variables" add constraint "agent_variables_name_unique" unique ("agent_id", "name");`);

    this.addSql(`create table "flows" ("id" serial primary key, "account_id" int not null, "agent_id" uuid not null, "name" text not null, "description" text null, "status" text not null default 'DRAFT', "is_default" boolean not null default false, "run_count" int not null default 0, "draft_snapshot_id" text not null, "live_snapshot_id" text null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "flows_agent_index" on "flows" ("agent_id");`);

    this.addSql(`create table "intents" ("id" serial primary key, "agent_id" uuid not null, "name" text not null, "description" text not null default '', "training_phrases" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "intents" add constraint "intents_name_unique" unique ("agent_id", "name");`);

    this.addSql(`alter table "agents" add constraint "agents_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "agent_configs" add constraint "agent_configs_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "agent_resources" add constraint "agent_resources_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "agent_variables" add constraint "agent_variables_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "flows" add constraint "flows_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "flows" add constraint "flows_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "intents" add constraint "intents_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agent_configs" drop constraint "agent_configs_agent_id_foreign";`);

    this.addSql(`alter table "agent_variables" drop constraint "agent_variables_agent_id_foreign";`);

    this.addSql(`alter table "flows" drop constraint "flows_agent_id_foreign";`);

    this.addSql(`alter table "intents" drop constraint "intents_agent_id_foreign";`);

    this.addSql(`drop table if exists "agents" cascade;`);

    this.addSql(`drop table if exists "agent_configs" cascade;`);

    this.addSql(`drop table if exists "agent_resources" cascade;`);

    this.addSql(`drop table if exists "agent_variables" cascade;`);

    this.addSql(`drop table if exists "flows" cascade;`);

    this.addSql(`drop table if exists "intents" cascade;`);
  }
}
