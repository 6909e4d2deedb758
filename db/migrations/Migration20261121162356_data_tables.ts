import { Migration } from '@mikro-orm/migrations';

export class Migration20261121162356_data_tables extends Migration {

  override async up(): Promise<void> {
    // Physical row tables and link tables of Objects and Tables live in their own schema.
    this.addSql(`create schema if not exists "data";`);
    this.addSql(`create table "data_tables" ("id" serial primary key, "account_id" int not null, "kind" text not null, "name" text not null, "display_name" text not null, "emoji" text null, "color" text null, "description" text null, "is_system" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint data_tables_kind_check check (kind in ('OBJECT', 'TABLE')));`);
    this.addSql(`alter table "data_tables" add constraint "data_tables_account_kind_name_unique" unique ("account_id", "kind", "name");`);

    this.addSql(`create table "outbox_events" ("id" bigserial primary key, "account_id" int not null, "type" text not null, "payload" jsonb not null, "created_at" timestamptz not null, "dispatched_at" timestamptz null);`);
    this.addSql(`create index "outbox_events_pending_index" on "outbox_events" ("id") where "dispatched_at" is null;`);

    this.addSql(`create table "data_record_types" ("id" serial primary key, "table_id" int not null, "name" text not null, "description" text null, "is_default" boolean not null default false, "position" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "data_record_types_table_index" on "data_record_types" ("table_id");`);
    this.addSql(`create unique index "data_record_types_name_unique" on "data_record_types" ("table_id", lower("name"));`);
    this.addSql(`create unique index "data_record_types_one_default" on "data_record_types" ("table_id") where "is_default";`);

    this.addSql(`create table "data_views" ("id" serial primary key, "table_id" int not null, "record_type_id" int null, "name" text not null, "filter" jsonb null, "sort" jsonb not null, "visible_field_ids" jsonb not null, "position" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "data_views_table_index" on "data_views" ("table_id");`);

    this.addSql(`create table "data_fields" ("id" serial primary key, "table_id" int not null, "name" text not null, "type" text not null, "metadata" jsonb not null, "required" boolean not null default false, "unique" boolean not null default false, "default_value" jsonb null, "read_only" boolean not null default false, "is_system" boolean not null default false, "record_type_id" int null, "position" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "data_fields_table_index" on "data_fields" ("table_id");`);
    this.addSql(`create unique index "data_fields_name_unique" on "data_fields" ("table_id", lower("name"));`);

    this.addSql(`create table "data_field_options" ("id" serial primary key, "field_id" int not null, "name" text not null, "color" text null, "position" int not null default 0, "created_at" timestamptz not null);`);
    this.addSql(`create index "data_field_options_field_index" on "data_field_options" ("field_id");`);
    this.addSql(`create unique index "data_field_options_name_unique" on "data_field_options" ("field_id", lower("name"));`);

    this.addSql(`alter table "data_tables" add constraint "data_tables_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "outbox_events" add constraint "outbox_events_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "data_record_types" add constraint "data_record_types_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "data_views" add constraint "data_views_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "data_views" add constraint "data_views_record_type_id_foreign" foreign key ("record_type_id") references "data_record_types" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "data_fields" add constraint "data_fields_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "data_fields" add constraint "data_fields_record_type_id_foreign" foreign key ("record_type_id") references "data_record_types" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "data_field_options" add constraint "data_field_options_field_id_foreign" foreign key ("field_id") references "data_fields" ("id") on update cascade on delete cascade;`);

  }

  override async down(): Promise<void> {
    this.addSql(`drop schema if exists "data" cascade;`);
    this.addSql(`alter table "data_record_types" drop constraint "data_record_types_table_id_foreign";`);

    this.addSql(`alter table "data_views" drop constraint "data_views_table_id_foreign";`);

    this.addSql(`alter table "data_fields" drop constraint "data_fields_table_id_foreign";`);

    this.addSql(`alter table "data_views" drop constraint "data_views_record_type_id_foreign";`);

    this.addSql(`alter table "data_fields" drop constraint "data_fields_record_type_id_foreign";`);

    this.addSql(`alter table "data_field_options" drop constraint "data_field_options_field_id_foreign";`);

    this.addSql(`drop table if exists "data_tables" cascade;`);

    this.addSql(`drop table if exists "outbox_events" cascade;`);

    this.addSql(`drop table if exists "data_record_types" cascade;`);

    this.addSql(`drop table if exists "data_views" cascade;`);

    this.addSql(`drop table if exists "data_fields" cascade;`);

    this.addSql(`drop table if exists "data_field_options" cascade;`);

  }

}
