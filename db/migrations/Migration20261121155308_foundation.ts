import { Migration } from '@mikro-orm/migrations';

export class Migration20261121155308_foundation extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "accounts" ("id" serial primary key, "name" text not null, "namespace" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "accounts" add constraint "accounts_namespace_unique" unique ("namespace");`);

    this.addSql(`create table "users" ("id" serial primary key, "account_id" int not null, "email" text not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "users" add constraint "users_account_email_unique" unique ("account_id", "email");`);

    this.addSql(`create table "api_keys" ("id" serial primary key, "account_id" int not null, "user_id" int null, "kind" text not null, "prefix" text not null, "key_hash" text not null, "label" text null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, constraint api_keys_kind_check check (kind in ('USER', 'GENERAL')), constraint api_keys_user_matches_kind check ((kind = 'USER') = (user_id is not null)));`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_keys_account_index" on "api_keys" ("account_id");`);
    this.addSql(`create index "api_keys_user_index" on "api_keys" ("user_id");`);

    this.addSql(`create table "worker_heartbeats" ("identity" text not null, "task_queue" text not null, "checks" int not null default 0, "first_seen_at" timestamptz not null, "last_seen_at" timestamptz not null, constraint "worker_heartbeats_pkey" primary key ("identity"));`);

    this.addSql(`alter table "users" add constraint "users_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

}
