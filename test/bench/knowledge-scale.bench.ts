/**
 * Knowledge bases at 10,000 and 100,000 chunks: indexing throughput and query latency over HTTP. Run:
 * `node --import tsx test/bench/knowledge-scale.bench.ts` (env ROUNDS, default 3: timed passes over the questions;
 * TARGET, default 100000: chunks of the large base; LANES, default 1: documents indexed at a time; KEEP=1 keeps the
 * database).
 *
 * Corpus: the pages of `npm run eval:knowledge`'s Debian manuals (PostgreSQL, Git, Python; fetched by it the first
 * time), one knowledge base, every page uploaded first (`addDocument`, timed apart: the API's work), then indexed
 * page after page by the indexing workflow's activities (extract, chunk, mark INDEXED; MockActivityEnvironment, no
 * provider; LANES documents at a time, as a worker runs several activities) until every page is in, about 25,000
 * chunks: chunks/s is that work, to the first 10,000 chunks and for the rest, with the CPU seconds it took in this
 * process and in this database's PostgreSQL backends (the machine's load from elsewhere left out). Then copies of every document (`copy-<n>/<page>`, the same
 * chunks with their tsvectors, written by `insert … select` so the statistics' triggers run as for new chunks, a few
 * hundred documents per statement) until the base holds TARGET chunks: each term's postings grow as they would in a
 * base of four similar manuals. Queries: the evaluation's 120 questions, `POST /knowledge-bases/{id}/query` top 10
 * through an API server this script starts, after one warm-up pass, at 10,000 chunks and at TARGET chunks, each
 * just after indexing (analyzed) and once vacuumed (postings then read by index-only scans, as after autovacuum). Baseline
 * in the same run: the same questions to an empty knowledge base of the same account (the route, the key check and
 * the JSON without retrieval work).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnowledgeActivities } from '../../activities/knowledge-indexing.activity.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { createResource } from '../../db/agents/agent-resources.service.js';
import { dropDatabase } from '../../db/database.js';
import { addDocument } from '../../db/knowledge/knowledge-documents.service.js';
import { createOutboundFetch } from '../../integrations/outbound/outbound-fetch.js';
import type { IndexStep } from '../../lib/knowledge/indexing-contract.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';
import { CORPORA, corpusPages, questionsOf } from '../eval/eval-corpora.js';
import { projectRoot } from '../setup/harness.js';
import { knowledgeApi } from '../eval/knowledge-api.js';
import { percentile } from './bench-processes.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TARGET = Number(process.env.TARGET ?? 100_000);
const SMALL = 10_000;
const LANES = Number(process.env.LANES ?? 1);
const dir = join(projectRoot, '.eval', 'corpora');
mkdirSync(dir, { recursive: true });
const questions = CORPORA.flatMap((c) => questionsOf(join(projectRoot, 'test', 'eval', 'questions', `${c.package}.json`)).map((q) => q.question));

const { databaseUrl, orm, server, api } = await knowledgeApi('bench');
const f = (n: number) => n.toFixed(1);
/**
 * CPU seconds used from now on by this process and by the PostgreSQL backends of this database (other sessions' work
 * on the same server left out), from /proc: what the indexing costs, whatever else loads the machine.
 */
async function cpuOf(knex: Knex) {
  const backends = async () => {
    const pids: number[] = (await knex.raw('select pid from pg_stat_activity where datname = current_database()')).rows.map(
      (r: { pid: number }) => r.pid,
    );
    let ticks = 0;
    for (const pid of pids)
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // The backend ended meanwhile.
      }
    return ticks / 100;
  };
  const [postgres, node] = [await backends(), process.cpuUsage()];
  return async () => {
    const used = process.cpuUsage(node);
    return { postgres: (await backends()) - postgres, node: (used.user + used.system) / 1e6 };
  };
}
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

try {
  const knex = orm.em.getKnex();
  const { account, generalKey } = await bootstrapAccount(orm.em.fork(), 'Bench', 'bench@example.test');
  const kb = await createResource(orm.em.fork(), account.id, 'KNOWLEDGE_BASE', { name: 'manuals', language: 'english' });
  const empty = await createResource(orm.em.fork(), account.id, 'KNOWLEDGE_BASE', { name: 'empty', language: 'english' });

  /** Query latencies (ms) of every question, ROUNDS times after a warm-up pass. */
  const latencies = async (base: number): Promise<number[]> => {
    const ask = async (question: string) => {
      const t = performance.now();
      const response = await fetch(`${api}/knowledge-bases/${base}/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${generalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: question, topK: 10 }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`query answered ${response.status}`);
      return performance.now() - t;
    };
    for (const q of questions) await ask(q);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) for (const q of questions) times.push(await ask(q));
    return times;
  };
  /** Query latencies at the base's size: just after indexing (planner statistics only) and once vacuumed (as autovacuum leaves it). */
  const report = async (label: string) => {
    const chunks = Number((await knex('knowledge_chunks').where('knowledge_base_id', kb.id).count({ n: '*' }))[0]!.n);
    for (const state of ['analyzed', 'vacuumed']) {
      await knex.raw(state === 'analyzed' ? 'analyze' : 'vacuum analyze');
      const own = await latencies(kb.id);
      const baseline = await latencies(empty.id);
      const p50 = percentile(own, 50);
      console.log(
        `  query at ${chunks} chunks (${label}, ${state}; ${questions.length} questions x ${ROUNDS}, top 10, HTTP): p50 ${f(p50)} ms, p95 ${f(percentile(own, 95))} ms; ` +
          `empty base p50 ${f(percentile(baseline, 50))} ms (retrieval ${f(p50 - percentile(baseline, 50))} ms); load ${load()}`,
      );
    }
  };

  console.log('knowledge scale bench');
  const activities = createKnowledgeActivities({ orm, provider: null, outbound: createOutboundFetch(REFUSE_PRIVATE), httpTimeoutMs: 30_000 });
  const env = new MockActivityEnvironment();
  const pages = CORPORA.flatMap((c) => corpusPages(dir, c).map((p) => ({ ...p, path: `${c.package}/${p.path}` })));
  // Upload first (the API's part: a document row and its outbox event each), timed apart from indexing.
  const uploadStarted = performance.now();
  const documents: { documentId: string; revision: number }[] = [];
  for (const page of pages) {
    const file = { fileName: page.path, contentType: 'text/html', bytes: page.bytes };
    const { document, created } = await addDocument(orm.em.fork(), kb, { file, title: page.path });
    if (created) documents.push({ documentId: document.id, revision: document.revision });
  }
  console.log(`  upload: ${documents.length} documents in ${f((performance.now() - uploadStarted) / 1000)} s (addDocument, before indexing)`);
  let chunks = 0;
  /** Indexes documents from `next` on in LANES lanes (documents side by side, as the worker's activities run) until `until` chunks. */
  let next = 0;
  const indexPages = async (until: number) => {
    const started = performance.now();
    const cpu = await cpuOf(knex);
    const before = chunks;
    const lane = async () => {
      while (next < documents.length && chunks < until) {
        const input = { accountId: account.id, ...documents[next++]! };
        await env.run(activities.extractKnowledgeText, input);
        const cut = (await env.run(activities.chunkKnowledgeText, input)) as IndexStep;
        if (cut.current) chunks += cut.count;
        await env.run(activities.markKnowledgeIndexed, input);
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    const seconds = (performance.now() - started) / 1000;
    const used = await cpu();
    console.log(
      `  indexing: ${chunks - before} chunks (${before} to ${chunks}) in ${f(seconds)} s, ${Math.round((chunks - before) / seconds)} chunks/s ` +
        `(${LANES} document${LANES > 1 ? 's' : ''} at a time, extract + chunk + INDEXED, no embeddings; load ${load()}); ` +
        `CPU: PostgreSQL ${f(used.postgres)} s, this process ${f(used.node)} s, ${Math.round((chunks - before) / (used.postgres + used.node))} chunks per CPU second`,
    );
  };
  await indexPages(SMALL);
  await report('indexed pages');
  await indexPages(Infinity);

  // Copies until TARGET chunks: documents and their chunks by `insert … select`, the triggers keeping the statistics.
  const copyStarted = performance.now();
  let copied = 0;
  for (let copy = 2; chunks + copied < TARGET; copy++) {
    const ids: string[] = await knex('knowledge_documents')
      .where('knowledge_base_id', kb.id)
      .whereNot('title', 'like', 'copy-%')
      .orderBy('id')
      .pluck('id');
    for (let i = 0; i < ids.length && chunks + copied < TARGET; i += 200) {
      const result = await knex.raw(
        `with m as (select id as old, gen_random_uuid() as new from knowledge_documents where id = any(:ids::uuid[])),
         d as (insert into knowledge_documents (id, account_id, knowledge_base_id, title, source, file_name, content_type, text, status, revision,
             chunk_count, indexed_at, created_at, updated_at, embeddings, embeddings_reason)
           select m.new, o.account_id, o.knowledge_base_id, 'copy-' || :copy || '/' || o.title, 'TEXT', null, null, o.text, o.status, 1,
             o.chunk_count, now(), now(), now(), 'UNAVAILABLE', 'bench copy' from knowledge_documents o join m on m.old = o.id returning id)
         insert into knowledge_chunks (account_id, knowledge_base_id, document_id, revision, position, heading_path, text, tsv)
         select c.account_id, c.knowledge_base_id, m.new, 1, c.position, c.heading_path, c.text, c.tsv
         from knowledge_chunks c join knowledge_documents o on o.id = c.document_id and o.revision = c.revision join m on m.old = c.document_id
         where (select count(*) from d) > 0`,
        { ids: ids.slice(i, i + 200), copy },
      );
      copied += result.rowCount ?? 0;
    }
  }
  const copyMs = performance.now() - copyStarted;
  if (copied)
    console.log(
      `  copies: ${copied} chunks in ${f(copyMs / 1000)} s, ${Math.round(copied / (copyMs / 1000))} chunks/s (statistics by the triggers, no parsing)`,
    );
  await report('with copies');

  const version = (await knex.raw('show server_version')).rows[0].server_version;
  console.log(`  conditions: PostgreSQL ${version}, ${cpus().length} CPUs (${cpus()[0]?.model}), Node ${process.version}`);
} finally {
  server.close();
  await orm.close();
  if (process.env.KEEP) console.log(`  kept ${databaseUrl}`);
  else await dropDatabase(databaseUrl);
}
