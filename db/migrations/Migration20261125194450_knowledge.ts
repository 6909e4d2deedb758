import { Migration } from '@mikro-orm/migrations';

/**
 * Knowledge bases that answer: documents and their chunks. Besides what the entities describe, the chunks' full-text
 * vector (`tsv`, written by the indexer in the knowledge base's language) and its GIN index, the catalog's embedding
 * model, and pgvector where the server has it (retrieval then scores `embedding::vector`; without it, SQL over real[]).
 */
export class Migration20261125194450_knowledge extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "knowledge_documents" ("id" uuid not null, "account_id" int not null, "knowledge_base_id" int not null, "title" text not null, "source" text not null, "url" text null, "file_name" text null, "content_type" text null, "body" bytea null, "content_hash" text null, "text" text null, "status" text not null default 'PENDING', "failure_reason" text null, "revision" int not null default 1, "chunk_count" int not null default 0, "indexed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "knowledge_documents_pkey" primary key ("id"), constraint knowledge_documents_status_check check (status in ('PENDING', 'INDEXED', 'FAILED')), constraint knowledge_documents_source_check check (source in ('INLINE', 'TEXT', 'FILE', 'URL')));`);
    this.addSql(`create index "knowledge_documents_base_index" on "knowledge_documents" ("knowledge_base_id", "created_at", "id");`);
    this.addSql(`create unique index "knowledge_documents_hash_unique" on "knowledge_documents" ("knowledge_base_id", "content_hash") where "content_hash" is not null;`);

    this.addSql(`create table "knowledge_chunks" ("id" bigserial primary key, "account_id" int not null, "knowledge_base_id" int not null, "document_id" uuid not null, "revision" int not null, "position" int not null, "heading_path" text[] not null, "text" text not null, "embedding" real[] null);`);
    this.addSql(`create index "knowledge_chunks_base_index" on "knowledge_chunks" ("knowledge_base_id");`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_document_position_unique" unique ("document_id", "revision", "position");`);

    this.addSql(`alter table "knowledge_documents" add constraint "knowledge_documents_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_documents" add constraint "knowledge_documents_knowledge_base_id_foreign" foreign key ("knowledge_base_id") references "agent_resources" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_knowledge_base_id_foreign" foreign key ("knowledge_base_id") references "agent_resources" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_document_id_foreign" foreign key ("document_id") references "knowledge_documents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "ai_models" drop constraint ai_models_type_check;`);

    this.addSql(`alter table "ai_models" add constraint ai_models_type_check check(type in ('TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS', 'EMBEDDING'));`);

    this.addSql(`alter table "conversation_messages" add column "citations" jsonb null;`);

    this.addSql(`alter table "knowledge_chunks" add column "tsv" tsvector not null;`);
    this.addSql(`create index "knowledge_chunks_tsv_index" on "knowledge_chunks" using gin ("tsv");`);
    this.addSql(`insert into "ai_models" ("id", "name", "description", "type", "ai_vendor", "external_id", "reasoning_model",
      "credits_per_message", "is_default", "display_order", "analytics_color", "deprecated") values
      (-40, 'text-embedding-3-small', 'Embeddings for knowledge-base retrieval (not charged)', 'EMBEDDING', 'OPENAI', 'text-embedding-3-small', false, 0, true, 1, '#0EA5E9', false);`);
    // pgvector where the server ships it and the role may install it; otherwise retrieval scores real[] in SQL.
    this.addSql(`do $$ begin
      if exists (select 1 from pg_available_extensions where name = 'vector') then
        begin create extension if not exists vector; exception when others then null; end;
      end if;
    end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "ai_models" where "type" = 'EMBEDDING';`);
    this.addSql(`alter table "knowledge_chunks" drop constraint "knowledge_chunks_document_id_foreign";`);

    this.addSql(`drop table if exists "knowledge_documents" cascade;`);

    this.addSql(`drop table if exists "knowledge_chunks" cascade;`);

    this.addSql(`alter table "ai_models" drop constraint ai_models_type_check;`);

    this.addSql(`alter table "ai_models" add constraint ai_models_type_check check(type in ('TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS'));`);

    this.addSql(`alter table "conversation_messages" drop column "citations";`);
  }

}
