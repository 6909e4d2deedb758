import { Migration } from '@mikro-orm/migrations';

/** Retries of failed runs (`run_retries`, one row per new run) and the retry jobs that retry many (`retry_jobs`). */
export class Migration20261128001500_run_retries extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "run_retries" ("id" text not null, "account_id" int not null, "workflow_id" int not null, "original_id" text not null, "from" text not null, "graph" text not null, "job_id" text null, "created_at" timestamptz not null, constraint "run_retries_pkey" primary key ("id"));`);
    this.addSql(`create index "run_retries_original_id_index" on "run_retries" ("original_id");`);
    this.addSql(`create unique index "run_retries_job_original_unique" on "run_retries" ("job_id", "original_id") where "job_id" is not null;`);
    this.addSql(`alter table "run_retries" add constraint "run_retries_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "run_retries" add constraint "run_retries_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "retry_jobs" ("id" text not null, "account_id" int not null, "workflow_id" int not null, "request" jsonb not null, "status" text not null default 'running', "planned" int null, "created_at" timestamptz not null, "finished_at" timestamptz null, constraint "retry_jobs_pkey" primary key ("id"));`);
    this.addSql(`create index "retry_jobs_workflow_index" on "retry_jobs" ("workflow_id");`);
    this.addSql(`alter table "retry_jobs" add constraint "retry_jobs_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "retry_jobs" add constraint "retry_jobs_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "run_retries" cascade;`);
    this.addSql(`drop table if exists "retry_jobs" cascade;`);
  }

}
