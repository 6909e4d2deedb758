import { Migration } from '@mikro-orm/migrations';

/**
 * What API processes share through PostgreSQL (DESIGN.md, Many API processes):
 * - `rate_limit_buckets`: one token bucket per limited key for the whole platform, taken in one call of
 *   `agentry_take_token` per request. UNLOGGED: a crash of PostgreSQL empties it, which only refills the buckets.
 *   `full_at` is when the bucket is full again; a full bucket is the same as none, so those rows are swept.
 * - Notices to open conversation streams: every message written (`m<conversation id>`) and every conversation that
 *   ends (`e<conversation id>`) is a NOTIFY on `agentry_conversations` from the writer's own transaction, whichever
 *   code wrote it, delivered at its commit.
 */
export class Migration20261128040000_shared_limits_stream_notices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create unlogged table "rate_limit_buckets" ("key" text not null, "tokens" float8 not null, "at" timestamptz not null,
      "full_at" timestamptz not null, constraint "rate_limit_buckets_pkey" primary key ("key"));`);
    this.addSql(`create index "rate_limit_buckets_full_at_index" on "rate_limit_buckets" ("full_at");`);
    this.addSql(`create or replace function agentry_take_token(p_key text, p_per_second float8, p_burst float8) returns float8
      language plpgsql as $$
      declare refilled float8;
      begin
        insert into rate_limit_buckets as b (key, tokens, at, full_at) values (p_key, p_burst, now(), now())
        on conflict (key) do update set tokens = least(p_burst, b.tokens + extract(epoch from now() - b.at) * p_per_second), at = now()
        returning tokens into refilled;
        if refilled >= 1 then
          update rate_limit_buckets set tokens = refilled - 1, full_at = now() + make_interval(secs => (p_burst - refilled + 1) / p_per_second)
          where key = p_key;
          return 0;
        end if;
        update rate_limit_buckets set full_at = now() + make_interval(secs => (p_burst - refilled) / p_per_second) where key = p_key;
        return greatest(1, ceil((1 - refilled) / p_per_second));
      end $$;`);

    this.addSql(`create or replace function agentry_conversation_notice() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'conversation_messages' then
          perform pg_notify('agentry_conversations', 'm' || new.conversation_id);
        else
          perform pg_notify('agentry_conversations', 'e' || new.id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger conversation_messages_notice after insert on conversation_messages
      for each row execute function agentry_conversation_notice();`);
    this.addSql(`create trigger conversations_end_notice after update of status on conversations
      for each row when (new.status = 'ENDED' and old.status is distinct from new.status) execute function agentry_conversation_notice();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists conversation_messages_notice on conversation_messages;`);
    this.addSql(`drop trigger if exists conversations_end_notice on conversations;`);
    this.addSql(`drop function if exists agentry_conversation_notice();`);
    this.addSql(`drop function if exists agentry_take_token(text, float8, float8);`);
    this.addSql(`drop table if exists "rate_limit_buckets";`);
  }
}
