import { Migration } from '@mikro-orm/migrations';

/** What bundle imports made, so that importing the same bundle again changes nothing. */
export class Migration20261128005713_bundle_imports extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "bundle_imports" ("id" serial primary key, "account_id" int not null, "kind" text not null, "source_key" text not null, "target_id" text not null, "checksum" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "bundle_imports" add constraint "bundle_imports_source_unique" unique ("account_id", "kind", "source_key");`);

    this.addSql(`alter table "bundle_imports" add constraint "bundle_imports_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "bundle_imports" cascade;`);
  }

}
