import { Migration } from '@mikro-orm/migrations';

export class Migration20261121163519_schema_version extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "data_tables" add column "schema_version" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "data_tables" drop column "schema_version";`);
  }
}
