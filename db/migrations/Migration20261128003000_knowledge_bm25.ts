import { Migration } from '@mikro-orm/migrations';

/**
 * BM25F statistics of each knowledge base, kept by triggers on `knowledge_chunks` as chunks are written and removed
 * (by the indexer, or by cascade when a document or knowledge base is deleted), so a query reads them instead of
 * counting: `knowledge_postings` (a lexeme's occurrences in one chunk by field, A headings, B text, C the document
 * title, with the chunk's field lengths, for index-only scans by lexeme), `knowledge_terms` (chunks holding each
 * lexeme) and `knowledge_base_stats` (chunks and summed field lengths). Each trigger updates the knowledge base's
 * stats row first: every writer of a knowledge base locks it before any term row, so two never deadlock. The
 * statistics of the chunks already stored are computed here.
 */
const occurrences = (rows: string) => `select c.id, c.knowledge_base_id, x.lexeme,
      coalesce(cardinality(array_positions(x.weights, 'A')), 0) as ta,
      coalesce(cardinality(array_positions(x.weights, 'B')), 0) as tb,
      coalesce(cardinality(array_positions(x.weights, 'C')), 0) as tc
    from ${rows} c cross join lateral unnest(c.tsv) x`;

const added = (rows: string) => [
  `with o as (${occurrences(rows)}), l as (select id, knowledge_base_id, sum(ta) as la, sum(tb) as lb, sum(tc) as lc from o group by id, knowledge_base_id)
    insert into knowledge_base_stats as s (knowledge_base_id, chunks, len_a, len_b, len_c)
    select knowledge_base_id, count(*), sum(la), sum(lb), sum(lc) from l group by knowledge_base_id order by knowledge_base_id
    on conflict (knowledge_base_id) do update set chunks = s.chunks + excluded.chunks, len_a = s.len_a + excluded.len_a,
      len_b = s.len_b + excluded.len_b, len_c = s.len_c + excluded.len_c`,
  `with o as (${occurrences(rows)}), l as (select id, sum(ta) as la, sum(tb) as lb, sum(tc) as lc from o group by id)
    insert into knowledge_postings (knowledge_base_id, lexeme, chunk_id, ta, tb, tc, la, lb, lc)
    select o.knowledge_base_id, o.lexeme, o.id, least(o.ta, 32767), least(o.tb, 32767), least(o.tc, 32767),
      least(l.la, 32767), least(l.lb, 32767), least(l.lc, 32767)
    from o join l using (id) on conflict do nothing`,
  `insert into knowledge_terms as t (knowledge_base_id, lexeme, df)
    select c.knowledge_base_id, x.lexeme, count(*) from ${rows} c cross join lateral unnest(tsvector_to_array(c.tsv)) x(lexeme)
    group by 1, 2 order by 1, 2
    on conflict (knowledge_base_id, lexeme) do update set df = t.df + excluded.df`,
];

const removed = [
  `with o as (${occurrences('old_rows')}), l as (select id, knowledge_base_id, sum(ta) as la, sum(tb) as lb, sum(tc) as lc from o group by id, knowledge_base_id),
    d as (select knowledge_base_id, count(*) as n, sum(la) as la, sum(lb) as lb, sum(lc) as lc from l group by knowledge_base_id)
    update knowledge_base_stats s set chunks = s.chunks - d.n, len_a = s.len_a - d.la, len_b = s.len_b - d.lb, len_c = s.len_c - d.lc
    from d where s.knowledge_base_id = d.knowledge_base_id`,
  `delete from knowledge_postings p using (select c.knowledge_base_id, x.lexeme, c.id from old_rows c cross join lateral unnest(tsvector_to_array(c.tsv)) x(lexeme)) d
    where p.knowledge_base_id = d.knowledge_base_id and p.lexeme = d.lexeme and p.chunk_id = d.id`,
  `update knowledge_terms t set df = t.df - d.n
    from (select c.knowledge_base_id, x.lexeme, count(*) as n from old_rows c cross join lateral unnest(tsvector_to_array(c.tsv)) x(lexeme) group by 1, 2) d
    where t.knowledge_base_id = d.knowledge_base_id and t.lexeme = d.lexeme`,
];

export class Migration20261128003000_knowledge_bm25 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "knowledge_base_stats" ("knowledge_base_id" int not null primary key, "chunks" int not null, "len_a" bigint not null, "len_b" bigint not null, "len_c" bigint not null);`);
    this.addSql(`create table "knowledge_terms" ("knowledge_base_id" int not null, "lexeme" text not null, "df" int not null, constraint "knowledge_terms_pkey" primary key ("knowledge_base_id", "lexeme"));`);
    this.addSql(`create table "knowledge_postings" ("knowledge_base_id" int not null, "lexeme" text not null, "chunk_id" bigint not null,
      "ta" smallint not null, "tb" smallint not null, "tc" smallint not null, "la" smallint not null, "lb" smallint not null, "lc" smallint not null,
      constraint "knowledge_postings_pkey" primary key ("knowledge_base_id", "lexeme", "chunk_id") include ("ta", "tb", "tc", "la", "lb", "lc"));`);
    this.addSql(`create function knowledge_chunks_added() returns trigger language plpgsql as $$ begin
      ${added('new_rows').join(';\n      ')};
      return null; end $$;`);
    this.addSql(`create function knowledge_chunks_removed() returns trigger language plpgsql as $$ begin
      ${removed.join(';\n      ')};
      return null; end $$;`);
    this.addSql(`create trigger knowledge_chunks_added after insert on "knowledge_chunks" referencing new table as new_rows for each statement execute function knowledge_chunks_added();`);
    this.addSql(`create trigger knowledge_chunks_removed after delete on "knowledge_chunks" referencing old table as old_rows for each statement execute function knowledge_chunks_removed();`);
    for (const sql of added('knowledge_chunks')) this.addSql(`${sql};`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists knowledge_chunks_added on "knowledge_chunks";`);
    this.addSql(`drop trigger if exists knowledge_chunks_removed on "knowledge_chunks";`);
    this.addSql(`drop function if exists knowledge_chunks_added(); drop function if exists knowledge_chunks_removed();`);
    this.addSql(`drop table if exists "knowledge_postings", "knowledge_terms", "knowledge_base_stats";`);
  }

}
