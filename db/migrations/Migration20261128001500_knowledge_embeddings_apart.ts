import { Migration } from '@mikro-orm/migrations';

/**
 * Embeddings get a state of their own beside a document's text index (`embeddings`: READY, PENDING, UNAVAILABLE,
 * with `embeddings_reason`), and providers without `/embeddings` are remembered (`knowledge_embedding_gaps`, by
 * endpoint and model). Documents INDEXED before: READY when every chunk has an embedding, else UNAVAILABLE. Documents
 * that embeddings held back (PENDING, or FAILED on an embeddings error: a provider without `/embeddings` or one that
 * never answered) are indexed again, each with a new revision and its KNOWLEDGE_INDEX outbox event: the worker makes
 * their text searchable at once after the upgrade.
 */
export class Migration20261128001500_knowledge_embeddings_apart extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "knowledge_documents" add column "embeddings" text not null default 'PENDING', add column "embeddings_reason" text null;`);
    this.addSql(`alter table "knowledge_documents" add constraint knowledge_documents_embeddings_check check(embeddings in ('READY', 'PENDING', 'UNAVAILABLE'));`);
    this.addSql(`create table "knowledge_embedding_gaps" ("endpoint" text not null, "model" text not null, "reason" text not null, "noted_at" timestamptz not null default now(), constraint "knowledge_embedding_gaps_pkey" primary key ("endpoint", "model"));`);
    this.addSql(`update "knowledge_documents" d set
      "embeddings" = case when exists (select 1 from "knowledge_chunks" c where c."document_id" = d."id" and c."revision" = d."revision" and c."embedding" is null) then 'UNAVAILABLE' else 'READY' end,
      "embeddings_reason" = case when exists (select 1 from "knowledge_chunks" c where c."document_id" = d."id" and c."revision" = d."revision" and c."embedding" is null) then 'Indexed before embeddings had a state of their own' end
      where "status" = 'INDEXED';`);
    this.addSql(`with bumped as (
      update "knowledge_documents" set "revision" = "revision" + 1, "status" = 'PENDING', "failure_reason" = null, "updated_at" = now()
      where "status" = 'PENDING' or ("status" = 'FAILED' and ("failure_reason" ilike '%embeddings%' or "failure_reason" ilike '%AI provider%'))
      returning "id", "account_id", "revision")
      insert into "outbox_events" ("account_id", "type", "payload", "created_at")
      select "account_id", 'KNOWLEDGE_INDEX', json_build_object('accountId', "account_id", 'documentId', "id", 'revision', "revision"), now() from bumped;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "knowledge_embedding_gaps" cascade;`);
    this.addSql(`alter table "knowledge_documents" drop constraint knowledge_documents_embeddings_check;`);
    this.addSql(`alter table "knowledge_documents" drop column "embeddings", drop column "embeddings_reason";`);
  }

}
