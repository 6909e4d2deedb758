import { Migration } from '@mikro-orm/migrations';

export class Migration20261123140102_admission extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "admitted_runs" ("id" text not null, "account_id" int null, "workflow_id" int null, "admitted_at" timestamptz null, "finished_at" timestamptz null, constraint "admitted_runs_pkey" primary key ("id"));`);
    this.addSql(`create index "admitted_runs_in_flight_index" on "admitted_runs" ("workflow_id") where "finished_at" is null;`);
    this.addSql(`create index "admitted_runs_finished_at_index" on "admitted_runs" ("finished_at");`);

    this.addSql(`create index "outbox_events_pending_account_index" on "outbox_events" ("account_id", "id") where "dispatched_at" is null and "dead_lettered_at" is null;`);

    this.addSql(`alter table "workflows" add column "concurrency_limit" int null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "admitted_runs" cascade;`);

    this.addSql(`drop index "outbox_events_pending_account_index";`);

    this.addSql(`alter table "workflows" drop column "concurrency_limit";`);
  }

}
