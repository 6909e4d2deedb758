import { Migration } from '@mikro-orm/migrations';

/**
 * The inbox's text search (`GET /conversations?q=`) looks for the text anywhere in the account's messages (`ILIKE
 * '%…%'`). A trigram index answers that without reading every message, where the server ships `pg_trgm` and the role
 * may install it; otherwise the search reads the account's messages, as before.
 */
export class Migration20261128101500_inbox_text_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$ begin
      if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
        begin create extension if not exists pg_trgm; exception when others then null; end;
      end if;
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index if not exists "conversation_messages_text_trgm_index" on "conversation_messages" using gin ("text" gin_trgm_ops);
      end if;
    end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "conversation_messages_text_trgm_index";`);
  }
}
