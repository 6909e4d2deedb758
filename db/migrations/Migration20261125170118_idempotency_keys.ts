import { Migration } from '@mikro-orm/migrations';

export class Migration20261125170118_idempotency_keys extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "idempotency_keys" ("scope" text not null, "key" text not null, "request_hash" text not null, "event_id" text null, "response_status" int null, "response_body" jsonb null, "created_at" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("scope", "key"));`);
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
