import { Migration } from '@mikro-orm/migrations';

/**
 * Notices to open conversation streams of a message's delivery status moving (a channel's send recorded, or the
 * network's delivered, read and failed): `s<conversation id>:<message id>` on `agentry_conversations`, from the
 * writing transaction, like the notices of new messages (Migration20261128040000_shared_limits_stream_notices).
 */
export class Migration20261128070000_stream_status_notices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function agentry_conversation_notice() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'conversation_messages' and tg_op = 'UPDATE' then
          perform pg_notify('agentry_conversations', 's' || new.conversation_id || ':' || new.id);
        elsif tg_table_name = 'conversation_messages' then
          perform pg_notify('agentry_conversations', 'm' || new.conversation_id);
        else
          perform pg_notify('agentry_conversations', 'e' || new.id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger conversation_messages_status_notice after update of delivery_status on conversation_messages
      for each row when (old.delivery_status is distinct from new.delivery_status) execute function agentry_conversation_notice();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists conversation_messages_status_notice on conversation_messages;`);
    this.addSql(`create or replace function agentry_conversation_notice() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'conversation_messages' then
          perform pg_notify('agentry_conversations', 'm' || new.conversation_id);
        else
          perform pg_notify('agentry_conversations', 'e' || new.id);
        end if;
        return null;
      end $$;`);
  }
}
