import { Migration } from '@mikro-orm/migrations';

/**
 * Background runs (a retry job's retries): outbox events and admitted runs say whether they yield to the others, and
 * the index admission picks pending events by orders an account's background events after its others.
 */
export class Migration20261128073000_background_runs extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "admitted_runs" add column "background" boolean not null default false;`);

    this.addSql(`alter table "outbox_events" add column "background" boolean not null default false;`);
    this.addSql(`drop index if exists "outbox_events_pending_account_index";`);
    this.addSql(`create index "outbox_events_pending_account_index" on "outbox_events" ("account_id", "background", "id") where "dispatched_at" is null and "dead_lettered_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "outbox_events_pending_account_index";`);
    this.addSql(`create index "outbox_events_pending_account_index" on "outbox_events" ("account_id", "id") where "dispatched_at" is null and "dead_lettered_at" is null;`);
    this.addSql(`alter table "admitted_runs" drop column "background";`);

    this.addSql(`alter table "outbox_events" drop column "background";`);
  }

}
