import { Migration } from '@mikro-orm/migrations';

export class Migration20261121163519_schema_version extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "data_tables" add column "schema_version" int not null default 0;`);
    // Outbox payloads are written once and read whole: json skips jsonb's parse on every insert.
    this.addSql(`alter table "outbox_events" alter column "payload" type json using "payload"::json;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "outbox_events" alter column "payload" type jsonb using "payload"::jsonb;`);
    this.addSql(`alter table "data_tables" drop column "schema_version";`);
  }
}
