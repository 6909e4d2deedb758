import { Migration } from '@mikro-orm/migrations';

/**
 * Retry-safe node executions and poison outbox events: `node_effects` records the outcome of each side-effecting
 * node execution by its key; outbox events count failed dispatch attempts, wait with backoff, and are parked
 * (dead-lettered) after too many, so the pending index leaves them out.
 */
export class Migration20261123100000_node_runtime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "node_effects" ("execution_key" text not null, "output" jsonb null, "created_at" timestamptz not null, constraint "node_effects_pkey" primary key ("execution_key"));`);
    this.addSql(`create index "node_effects_created_at_index" on "node_effects" ("created_at");`);
    this.addSql(`alter table "outbox_events" add column "attempts" int not null default 0, add column "next_attempt_at" timestamptz null, add column "last_error" text null, add column "dead_lettered_at" timestamptz null;`);
    this.addSql(`drop index if exists "outbox_events_pending_index";`);
    this.addSql(`create index "outbox_events_pending_index" on "outbox_events" ("id") where "dispatched_at" is null and "dead_lettered_at" is null;`);
    this.addSql(`create index "outbox_events_dead_letter_index" on "outbox_events" ("id") where "dead_lettered_at" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "node_effects" cascade;`);
    this.addSql(`drop index if exists "outbox_events_dead_letter_index";`);
    this.addSql(`drop index if exists "outbox_events_pending_index";`);
    this.addSql(`alter table "outbox_events" drop column "attempts", drop column "next_attempt_at", drop column "last_error", drop column "dead_lettered_at";`);
    this.addSql(`create index "outbox_events_pending_index" on "outbox_events" ("id") where "dispatched_at" is null;`);
  }
}
