import { Migration } from '@mikro-orm/migrations';

/** Aggregations of saved views: one operation per view and field, deleted with the view or the field. */
export class Migration20261123110000_view_aggregations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "data_view_aggregations" ("id" serial primary key, "view_id" int not null, "field_id" int not null, "operation" text not null, "position" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "data_view_aggregations" add constraint "data_view_aggregations_view_field_unique" unique ("view_id", "field_id");`);
    this.addSql(`alter table "data_view_aggregations" add constraint "data_view_aggregations_view_id_foreign" foreign key ("view_id") references "data_views" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "data_view_aggregations" add constraint "data_view_aggregations_field_id_foreign" foreign key ("field_id") references "data_fields" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "data_view_aggregations" cascade;`);
  }
}
