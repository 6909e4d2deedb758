import { Migration } from '@mikro-orm/migrations';

/**
 * The automation runtime: the run ledger behind counters and analytics, the causation chain of outbox events
 * (loop prevention) and the account's credit balance.
 */
export class Migration20261121180001_runtime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "workflow_runs" ("id" text not null, "account_id" int not null, "workflow_id" int not null, "trigger_type" text not null, "event_id" text null, "status" text not null default 'running', "prevented_loop" boolean not null default false, "insufficient_credits" boolean not null default false, "operations" int not null default 0, "ai_credits" double precision not null default 0, "error" text null, "started_at" timestamptz not null, "completed_at" timestamptz null, constraint "workflow_runs_pkey" primary key ("id"), constraint workflow_runs_status_check check (status in ('running', 'successful', 'failed', 'cancelled')));`);
    this.addSql(`create index "workflow_runs_workflow_started_index" on "workflow_runs" ("workflow_id", "started_at");`);
    this.addSql(`create index "workflow_runs_account_index" on "workflow_runs" ("account_id");`);
    this.addSql(`alter table "workflow_runs" add constraint "workflow_runs_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "workflow_runs" add constraint "workflow_runs_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "outbox_events" add column "chain" json null;`);
    this.addSql(`alter table "accounts" add column "credit_balance" double precision null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "accounts" drop column if exists "credit_balance";`);
    this.addSql(`alter table "outbox_events" drop column if exists "chain";`);
    this.addSql(`drop table if exists "workflow_runs" cascade;`);
  }
}
