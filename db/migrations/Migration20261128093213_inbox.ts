import { Migration } from '@mikro-orm/migrations';

/**
 * The operator inbox (issue 46): the claim of a conversation by a user and when it was last handed off, the users'
 * presence, typing and read marks per conversation, the indexes of the account-wide list (newest message first;
 * newest wait first among the handed-off), and the notices that wake the inbox streams: `<account id>:<conversation
 * id>` on `agentry_inbox` from the writing transaction whenever a message is written, a conversation starts or changes
 * status, claim or wait, or a user's presence, typing or read mark changes (a presence renewed while still fresh is
 * not news).
 */
export class Migration20261128093213_inbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "conversation_viewers" ("conversation_id" uuid not null, "user_id" int not null, "account_id" int not null, "present_until" timestamptz null, "typing" boolean not null default false, "read_message_id" bigint null, "updated_at" timestamptz not null, constraint "conversation_viewers_pkey" primary key ("conversation_id", "user_id"));`);
    this.addSql(`create index "conversation_viewers_user_index" on "conversation_viewers" ("user_id");`);

    this.addSql(`alter table "conversation_viewers" add constraint "conversation_viewers_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "conversation_viewers" add constraint "conversation_viewers_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "conversation_viewers" add constraint "conversation_viewers_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "conversations" add column "waiting_since" timestamptz null, add column "claimed_by_id" int null, add column "claimed_at" timestamptz null;`);
    this.addSql(`alter table "conversations" add constraint "conversations_claimed_by_id_foreign" foreign key ("claimed_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`update "conversations" set "waiting_since" = "last_message_at" where "status" = 'HANDED_OFF';`);
    this.addSql(`create index "conversations_account_last_message_index" on "conversations" ("account_id", "last_message_at" desc, "id" desc);`);
    this.addSql(`create index "conversations_account_waiting_index" on "conversations" ("account_id", "waiting_since" desc, "id" desc) where "status" = 'HANDED_OFF';`);

    this.addSql(`create or replace function agentry_inbox_notice() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'conversations' then
          perform pg_notify('agentry_inbox', new.account_id || ':' || new.id);
        else
          perform pg_notify('agentry_inbox', new.account_id || ':' || new.conversation_id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger conversation_messages_inbox_notice after insert on conversation_messages
      for each row execute function agentry_inbox_notice();`);
    this.addSql(`create trigger conversations_inbox_start_notice after insert on conversations
      for each row execute function agentry_inbox_notice();`);
    this.addSql(`create trigger conversations_inbox_change_notice after update on conversations
      for each row when (old.status is distinct from new.status or old.claimed_by_id is distinct from new.claimed_by_id
        or old.claimed_at is distinct from new.claimed_at or old.waiting_since is distinct from new.waiting_since
        or old.contact_name is distinct from new.contact_name or old.contact_email is distinct from new.contact_email)
      execute function agentry_inbox_notice();`);
    this.addSql(`create trigger conversation_viewers_inbox_start_notice after insert on conversation_viewers
      for each row execute function agentry_inbox_notice();`);
    this.addSql(`create trigger conversation_viewers_inbox_change_notice after update on conversation_viewers
      for each row when (old.typing is distinct from new.typing or old.read_message_id is distinct from new.read_message_id
        or (old.present_until is not null and old.present_until > now()) is distinct from (new.present_until is not null and new.present_until > now()))
      execute function agentry_inbox_notice();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists conversations_inbox_start_notice on conversations;`);
    this.addSql(`drop trigger if exists conversations_inbox_change_notice on conversations;`);
    this.addSql(`drop trigger if exists conversation_messages_inbox_notice on conversation_messages;`);
    this.addSql(`drop table if exists "conversation_viewers" cascade;`);
    this.addSql(`drop function if exists agentry_inbox_notice();`);

    this.addSql(`alter table "conversations" drop constraint "conversations_claimed_by_id_foreign";`);

    this.addSql(`drop index "conversations_account_last_message_index";`);
    this.addSql(`drop index "conversations_account_waiting_index";`);
    this.addSql(`alter table "conversations" drop column "waiting_since", drop column "claimed_by_id", drop column "claimed_at";`);
  }
}
