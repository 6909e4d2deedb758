import { Migration } from '@mikro-orm/migrations';

/**
 * Knowledge chunks are cut and indexed differently (subsections packed under their section, badges and link
 * definitions left out of the text, `<summary>` headings, code identifiers indexed as their words): every document
 * is indexed again. Each gets a new revision, PENDING, and its KNOWLEDGE_INDEX outbox event, as a changed document
 * does; the worker re-indexes them after the upgrade (until then a document's old chunks are not searched: they are
 * of an old revision). Nothing to undo: the old chunks are replaced by the indexer, not by this migration.
 */
export class Migration20261125235900_knowledge_reindex extends Migration {

  override async up(): Promise<void> {
    this.addSql(`with bumped as (
      update "knowledge_documents" set "revision" = "revision" + 1, "status" = 'PENDING', "failure_reason" = null, "updated_at" = now()
      returning "id", "account_id", "revision")
      insert into "outbox_events" ("account_id", "type", "payload", "created_at")
      select "account_id", 'KNOWLEDGE_INDEX', json_build_object('accountId', "account_id", 'documentId', "id", 'revision', "revision"), now() from bumped;`);
  }

  override async down(): Promise<void> {}

}
