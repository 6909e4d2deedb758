import { Migration } from '@mikro-orm/migrations';

export class Migration20261121170003_workflows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "workflows" ("id" serial primary key, "account_id" int not null,
      "name" text not null, "description" text null, "status" text not null default 'DRAFT', "trigger_type" text null,
      "runs_count" int not null default 0, "runs_failed_count" int not null default 0, "last_run_date" timestamptz null,
      "draft_snapshot_id" text not null, "live_snapshot_id" text null, "deleted_at" timestamptz null,
      "created_at" timestamptz not null, "updated_at" timestamptz not null,
      constraint workflows_status_check check (status in ('ACTIVE', 'DRAFT', 'PAUSED', 'ARCHIVED')));`);
    this.addSql(`create index "workflows_account_index" on "workflows" ("account_id");`);
    this.addSql(`create table "graph_snapshots" ("id" text primary key, "account_id" int not null,
      "owner_type" text not null, "owner_id" text not null, "kind" text not null, "nodes" jsonb not null, "edges" jsonb not null,
      "created_at" timestamptz not null, "updated_at" timestamptz not null,
      constraint graph_snapshots_kind_check check (kind in ('DRAFT', 'LIVE')));`);
    this.addSql(`create index "graph_snapshots_owner_index" on "graph_snapshots" ("owner_type", "owner_id");`);
    this.addSql(`create table "workflow_variables" ("id" serial primary key, "workflow_id" int not null,
      "name" text not null, "description" text not null default '', "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "workflow_variables" add constraint "workflow_variables_name_unique" unique ("workflow_id", "name");`);
    this.addSql(`alter table "workflows" add constraint "workflows_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "graph_snapshots" add constraint "graph_snapshots_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "workflow_variables" add constraint "workflow_variables_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "workflow_variables";`);
    this.addSql(`drop table if exists "graph_snapshots";`);
    this.addSql(`drop table if exists "workflows";`);
  }
}
