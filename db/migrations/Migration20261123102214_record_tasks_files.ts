import { Migration } from '@mikro-orm/migrations';

/**
 * Tasks and files of Object records. Records live in physical row tables, so `row_id` has no foreign key (as for
 * activities); the Object, the account, the users and (files) the file field do. A file row is written only after
 * its bytes are stored, under a unique random storage key.
 */
export class Migration20261123102214_record_tasks_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "record_tasks" ("id" serial primary key, "account_id" int not null, "table_id" int not null, "row_id" text not null, "content" text not null, "due_date" timestamptz null, "assignee_ids" jsonb not null, "created_by_id" int null, "completed_at" timestamptz null, "completed_by_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "record_tasks_record_index" on "record_tasks" ("table_id", "row_id");`);
    this.addSql(`create index "record_tasks_account_index" on "record_tasks" ("account_id");`);
    this.addSql(`create table "record_files" ("id" serial primary key, "account_id" int not null, "table_id" int not null, "row_id" text not null, "field_id" int null, "name" text not null, "content_type" text not null, "size" bigint not null, "storage_key" text not null, "uploaded_by_id" int null, "created_at" timestamptz not null);`);
    this.addSql(`create index "record_files_record_index" on "record_files" ("table_id", "row_id");`);
    this.addSql(`create index "record_files_account_index" on "record_files" ("account_id");`);
    this.addSql(`alter table "record_files" add constraint "record_files_storage_key_unique" unique ("storage_key");`);
    this.addSql(`alter table "record_tasks" add constraint "record_tasks_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_tasks" add constraint "record_tasks_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_tasks" add constraint "record_tasks_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "record_tasks" add constraint "record_tasks_completed_by_id_foreign" foreign key ("completed_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "record_files" add constraint "record_files_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_files" add constraint "record_files_table_id_foreign" foreign key ("table_id") references "data_tables" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "record_files" add constraint "record_files_field_id_foreign" foreign key ("field_id") references "data_fields" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "record_files" add constraint "record_files_uploaded_by_id_foreign" foreign key ("uploaded_by_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "record_tasks" cascade;`);
    this.addSql(`drop table if exists "record_files" cascade;`);
  }
}
