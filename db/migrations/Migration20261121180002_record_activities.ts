import { Migration } from '@mikro-orm/migrations';

/**
 * Activities of Object records (notes, calls, meetings, ...). The record itself lives in a physical row table, so
 * `row_id` has no foreign key; the Object, the account and the author do. Node-written activities carry an
 * idempotency key, so a retried node execution does not log its activity twice.
 */
export class Migration20261121180002_record_activities extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "record_activities" ("id" serial primary key, "account_id" int not null, "table_id" int not null, "row_id" text not null, "type" text not null, "content" text not null, "auto_generated" boolean not null default false, "author_id" int null, "source" jsonb null, "idempotency_key" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint record_activities_type_check check (type in ('NOTE', 'EMAIL', 'PHONE_CALL', 'MEETING', 'MESSAGING', 'WHATSAPP')));`);
    this.addSql(`create index "record_activities_record_index" on "record_activities" ("table_id", "row_id", "id");`);
    this.addSql(`create index "record_activities_account_index" on "record_activities" ("account_id");`);
    this.addSql(`create unique index "record_activities_idempotency_key_unique" on "record_activities" ("idempotency_key") where "idempotency_key" is not null;`);
    this.addSql(`alter table "record_activities" add constraint "record_activities_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_activities" add constraint "record_activities_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_activities" add constraint "record_activities_author_id_foreign" foreign key ("author_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "record_activities" cascade;`);
  }
}
