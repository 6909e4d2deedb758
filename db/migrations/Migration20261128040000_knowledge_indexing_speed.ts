import { Migration } from '@mikro-orm/migrations';

/**
 * Faster indexing, same statistics. The GIN index of `knowledge_chunks.tsv` goes: since BM25F (`knowledge_bm25`) no
 * query reads it (postings are found through `knowledge_postings`), yet every chunk written grew its pending list and
 * the indexer merged that list after each document. The chunk triggers do less: a chunk's occurrences are read out
 * of its tsvector once for the stats row and the postings (one statement), postings are inserted without a
 * conflict check (a chunk is inserted once: its id is new), and a statement that wrote or removed no chunk (the
 * indexer's removal of other revisions, most often) returns at once. `knowledge_terms` leaves room in its pages so
 * the update of a term's count stays on its page (a HOT update: no index entry per update).
 */
const occurrences = (rows: string) => `select c.id, c.knowledge_base_id, x.lexeme,
      coalesce(cardinality(array_positions(x.weights, 'A')), 0) as ta,
      coalesce(cardinality(array_positions(x.weights, 'B')), 0) as tb,
      coalesce(cardinality(array_positions(x.weights, 'C')), 0) as tc
    from ${rows} c cross join lateral unnest(c.tsv) x`;

/** The stats row first (every writer of a knowledge base locks it before any term row, so two never deadlock). */
const added = [
  `with o as (${occurrences('new_rows')}), l as (select id, knowledge_base_id, sum(ta) as la, sum(tb) as lb, sum(tc) as lc from o group by id, knowledge_base_id),
    s as (insert into knowledge_base_stats as s (knowledge_base_id, chunks, len_a, len_b, len_c)
      select knowledge_base_id, count(*), sum(la), sum(lb), sum(lc) from l group by knowledge_base_id order by knowledge_base_id
      on conflict (knowledge_base_id) do update set chunks = s.chunks + excluded.chunks, len_a = s.len_a + excluded.len_a,
        len_b = s.len_b + excluded.len_b, len_c = s.len_c + excluded.len_c
      returning 1)
    insert into knowledge_postings (knowledge_base_id, lexeme, chunk_id, ta, tb, tc, la, lb, lc)
    select o.knowledge_base_id, o.lexeme, o.id, least(o.ta, 32767), least(o.tb, 32767), least(o.tc, 32767),
      least(l.la, 32767), least(l.lb, 32767), least(l.lc, 32767)
    from o join l using (id) where (select count(*) from s) > 0`,
  `insert into knowledge_terms as t (knowledge_base_id, lexeme, df)
    select c.knowledge_base_id, x.lexeme, count(*) from new_rows c cross join lateral unnest(tsvector_to_array(c.tsv)) x(lexeme)
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
    from (select c.knowledge_base_id, x.lexeme, count(*) as n from old_rows c cross join lateral unnest(tsvector_to_array(c.tsv)) x(lexeme) group by 1, 2 order by 1, 2) d
    where t.knowledge_base_id = d.knowledge_base_id and t.lexeme = d.lexeme`,
];

const body = (rows: string, statements: string[]) => `begin
      if not exists (select 1 from ${rows}) then return null; end if;
      ${statements.join(';\n      ')};
      return null; end`;

export class Migration20261128040000_knowledge_indexing_speed extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index if exists "knowledge_chunks_tsv_index";`);
    this.addSql(`alter table "knowledge_terms" set (fillfactor = 70);`);
    this.addSql(`create or replace function knowledge_chunks_added() returns trigger language plpgsql as $$ ${body('new_rows', added)} $$;`);
    this.addSql(`create or replace function knowledge_chunks_removed() returns trigger language plpgsql as $$ ${body('old_rows', removed)} $$;`);
  }

  /** The functions stay as they are: they keep the same statistics. */
  override async down(): Promise<void> {
    this.addSql(`create index if not exists "knowledge_chunks_tsv_index" on "knowledge_chunks" using gin ("tsv");`);
    this.addSql(`alter table "knowledge_terms" reset (fillfactor);`);
  }

}
