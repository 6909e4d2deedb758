import { Migration } from '@mikro-orm/migrations';

/**
 * The API keeps verified keys in memory (db/accounts/key-cache.ts) and forgets them all when PostgreSQL says on
 * channel `api_identities` that a key, its account or its user changed: a revoked key is refused at once, however
 * it was revoked (the admin CLI, SQL by hand). Only the columns a verified identity carries notify: the frequent
 * writes (last_used_at, credit balances) do not.
 */
export class Migration20261126130000_identity_notify extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create function "api_identity_changed"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_identities', '');
        return null;
      end $$;`);
    this.addSql(`create trigger "api_keys_identity_changed" after update of "revoked_at", "key_hash", "kind", "account_id", "user_id" or delete
      on "api_keys" for each statement execute function "api_identity_changed"();`);
    this.addSql(`create trigger "accounts_identity_changed" after update of "name", "namespace", "created_at", "updated_at" or delete
      on "accounts" for each statement execute function "api_identity_changed"();`);
    this.addSql(`create trigger "users_identity_changed" after update of "email", "account_id", "created_at" or delete
      on "users" for each statement execute function "api_identity_changed"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "users_identity_changed" on "users";`);
    this.addSql(`drop trigger "accounts_identity_changed" on "accounts";`);
    this.addSql(`drop trigger "api_keys_identity_changed" on "api_keys";`);
    this.addSql(`drop function "api_identity_changed"();`);
  }

}
