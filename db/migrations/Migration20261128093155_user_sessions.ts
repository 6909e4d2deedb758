import { Migration } from '@mikro-orm/migrations';

/**
 * People sign in (the console): a user's scrypt password hash and display name, and the sessions of signed-in browsers
 * (only the SHA-256 of each cookie token is stored).
 */
export class Migration20261128093155_user_sessions extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "user_sessions" ("id" uuid not null, "user_id" int not null, "account_id" int not null, "token_hash" text not null, "csrf_token" text not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "address" text not null, "user_agent" text null, constraint "user_sessions_pkey" primary key ("id"));`);
    this.addSql(`alter table "user_sessions" add constraint "user_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "user_sessions_user_index" on "user_sessions" ("user_id");`);
    this.addSql(`create index "user_sessions_expires_at_index" on "user_sessions" ("expires_at");`);

    this.addSql(`alter table "user_sessions" add constraint "user_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "user_sessions" add constraint "user_sessions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "users" add column "password_hash" text null, add column "name" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "user_sessions" cascade;`);

    this.addSql(`alter table "users" drop column "password_hash", drop column "name";`);
  }

}
