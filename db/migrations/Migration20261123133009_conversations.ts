import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133009_conversations extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "conversations" ("id" uuid not null, "account_id" int not null, "agent_id" uuid not null, "channel" text not null, "status" text not null default 'ACTIVE', "turns" int not null default 0, "message_count" int not null default 0, "credits_used" double precision not null default 0, "feedback" jsonb null, "end_reason" text null, "started_at" timestamptz not null, "last_message_at" timestamptz not null, "ended_at" timestamptz null, constraint "conversations_pkey" primary key ("id"));`);
    this.addSql(`create index "conversations_agent_started_index" on "conversations" ("agent_id", "started_at");`);

    this.addSql(`create table "conversation_messages" ("id" bigserial primary key, "account_id" int not null, "conversation_id" uuid not null, "key" text not null, "author" text not null, "text" text not null, "turn" int not null, "flow_id" int null, "node_id" text null, "credits" double precision not null default 0, "temporal_run_id" text null, "created_at" timestamptz not null);`);
    this.addSql(`create index "conversation_messages_conversation_index" on "conversation_messages" ("conversation_id", "id");`);
    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_key_unique" unique ("key");`);

    this.addSql(`alter table "conversations" add constraint "conversations_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "conversations" add constraint "conversations_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "conversation_messages" drop constraint "conversation_messages_conversation_id_foreign";`);

    this.addSql(`drop table if exists "conversations" cascade;`);

    this.addSql(`drop table if exists "conversation_messages" cascade;`);
  }

}
