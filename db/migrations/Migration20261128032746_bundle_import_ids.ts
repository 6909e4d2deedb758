import { Migration } from '@mikro-orm/migrations';

/** What each bundle import made, so a changed bundle imported again updates it in place. */
export class Migration20261128032746_bundle_import_ids extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "bundle_imports" add column "ids" jsonb not null default '{}';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "bundle_imports" drop column "ids";`);
  }

}
