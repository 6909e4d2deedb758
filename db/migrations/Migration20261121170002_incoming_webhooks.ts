import { Migration } from '@mikro-orm/migrations';

export class Migration20261121170002_incoming_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "incoming_webhooks" ("id" text not null, "account_id" int not null, "name" text not null, "description" text null, "is_active" boolean not null default true, "use_authentication" boolean not null default true, "token_hash" text null, "token_prefix" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "incoming_webhooks_pkey" primary key ("id"), constraint incoming_webhooks_token_check check ((not use_authentication) or token_hash is not null));`);
    this.addSql(`create index "incoming_webhooks_account_index" on "incoming_webhooks" ("account_id");`);
    this.addSql(`alter table "incoming_webhooks" add constraint "incoming_webhooks_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "incoming_webhooks" cascade;`);
  }
}
