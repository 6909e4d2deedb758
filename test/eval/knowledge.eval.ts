/**
 * `npm run eval:knowledge`: retrieval quality on public corpora nobody tuned for (`eval-corpora.ts`: Debian's
 * PostgreSQL, Git and Python manuals, fetched by this script), against a plain Okapi BM25 over the same chunks
 * (`okapi-bm25.ts`), in the same run. Each corpus is one knowledge base of a fresh database, its pages indexed by the
 * indexing workflow's activities (Temporal's MockActivityEnvironment, no provider: text only); questions go through
 * the HTTP API (`POST /knowledge-bases/{id}/query`, top 10) of an API server this script starts. The questions
 * (`questions/<package>.json`, which say how they were written and how they were split) count a hit when a passage
 * from the answer page holds the answer text as the model reads it (`renderedPassage`).
 *
 * Prints recall@5, MRR (of the first hit in the top 10) and nDCG@10 (binary relevance: every chunk of the answer
 * page holding the answer text is relevant) per corpus, split (dev: tuned on; test: reported) and kind, for agentry
 * and BM25, and the query p50 over HTTP. Env SPLIT=dev|test|all (default all), CORPORA=a,b (packages, default all),
 * MISSES=1 lists the test misses... of dev only (test misses are never printed, so nothing is tuned on them).
 *
 * Multi-query: with AI_BASE_URL and AI_API_KEY set (an OpenAI-compatible server) and AI_TEXT_MODEL (the model it
 * serves, made the catalog's default TEXT model of the eval's database), every question is asked again with the
 * knowledge base's `multiQuery` on, printed as the `multi-query` rows beside the two others (the rewrite calls it made
 * and those that failed are counted). Without them there are no such rows: nothing stands in for a model.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnowledgeActivities } from '../../activities/knowledge-indexing.activity.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { createResource } from '../../db/agents/agent-resources.service.js';
import { dropDatabase } from '../../db/database.js';
import { addDocument } from '../../db/knowledge/knowledge-documents.service.js';
import { aiProviderFrom } from '../../integrations/ai/openai-compatible-provider.js';
import { passagesOf, type Passage } from '../../db/knowledge/knowledge-search.js';
import { renderedPassage } from '../../integrations/knowledge/grounding.js';
import { createOutboundFetch } from '../../integrations/outbound/outbound-fetch.js';
import type { IndexStep } from '../../lib/knowledge/indexing-contract.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';
import { percentile } from '../bench/bench-processes.js';
import { projectRoot } from '../setup/harness.js';
import { knowledgeApi } from './knowledge-api.js';
import { CORPORA, corpusPages, questionsOf, type Question } from './eval-corpora.js';
import { OkapiBm25 } from './okapi-bm25.js';

const dir = join(projectRoot, '.eval', 'corpora');
mkdirSync(dir, { recursive: true });
const only = process.env.CORPORA?.split(',');
const corpora = CORPORA.filter((c) => !only || only.includes(c.package));

const isHit = (q: Question, p: Passage) =>
  q.answers.some((a) => p.title.endsWith(a.page) && renderedPassage(p).toLowerCase().includes(a.text.toLowerCase()));

interface Scores {
  recall5: number;
  mrr: number;
  ndcg10: number;
}

/** The scores of one ranking (passages, best first) for a question with `relevant` relevant chunks in all. */
function scored(q: Question, ranked: Passage[], relevant: number): Scores {
  const hits = ranked.slice(0, 10).map((p) => isHit(q, p));
  const first = hits.indexOf(true);
  const dcg = hits.reduce((sum, h, i) => sum + (h ? 1 / Math.log2(i + 2) : 0), 0);
  let ideal = 0;
  for (let i = 0; i < Math.min(10, Math.max(1, relevant)); i++) ideal += 1 / Math.log2(i + 2);
  return { recall5: first >= 0 && first < 5 ? 1 : 0, mrr: first >= 0 ? 1 / (first + 1) : 0, ndcg10: Math.min(1, dcg / ideal) };
}

const mean = (xs: Scores[]): Scores => ({
  recall5: xs.reduce((s, x) => s + x.recall5, 0) / (xs.length || 1),
  mrr: xs.reduce((s, x) => s + x.mrr, 0) / (xs.length || 1),
  ndcg10: xs.reduce((s, x) => s + x.ndcg10, 0) / (xs.length || 1),
});

const rewriter =
  process.env.AI_BASE_URL && process.env.AI_TEXT_MODEL
    ? aiProviderFrom({ baseUrl: process.env.AI_BASE_URL, apiKey: process.env.AI_API_KEY ?? '' })
    : null;
const SYSTEMS = ['agentry', 'BM25', ...(rewriter ? ['multi-query'] : [])];
const { databaseUrl, orm, server, api } = await knowledgeApi('eval', rewriter);
if (rewriter) await orm.em.getKnex()('ai_models').where({ type: 'TEXT', is_default: true }).update({ external_id: process.env.AI_TEXT_MODEL });
const rewrites = { used: 0, unavailable: 0 };
const rows: { corpus: string; split: string; kind: string; system: string; n: number; scores: Scores }[] = [];
const latencies: number[] = [];
const misses: string[] = [];
try {
  const knex = orm.em.getKnex();
  const { account, generalKey } = await bootstrapAccount(orm.em.fork(), 'Eval', 'eval@example.test');
  const ask = async (kb: number, query: string) => {
    const response = await fetch(`${api}/knowledge-bases/${kb}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${generalKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, topK: 10 }),
    });
    const body = (await response.json()) as { agentry: Passage[]; rewrites: { status: string } };
    if (response.status !== 200) throw new Error(`query answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const activities = createKnowledgeActivities({ orm, provider: null, outbound: createOutboundFetch(REFUSE_PRIVATE), httpTimeoutMs: 30_000 });
  const env = new MockActivityEnvironment();
  for (const corpus of corpora) {
    const kb = await createResource(orm.em.fork(), account.id, 'KNOWLEDGE_BASE', { name: corpus.package, language: 'english' });
    const pages = corpusPages(dir, corpus);
    let chunks = 0;
    let uploading = 0;
    const started = performance.now();
    for (const page of pages) {
      const file = { fileName: page.path, contentType: 'text/html', bytes: page.bytes };
      const upload = performance.now();
      const { document, created } = await addDocument(orm.em.fork(), kb, { file, title: page.path });
      uploading += performance.now() - upload;
      if (!created) continue;
      const input = { accountId: account.id, documentId: document.id, revision: document.revision };
      await env.run(activities.extractKnowledgeText, input);
      const cut = (await env.run(activities.chunkKnowledgeText, input)) as IndexStep;
      if (cut.current) chunks += cut.count;
      await env.run(activities.markKnowledgeIndexed, input);
    }
    const seconds = (performance.now() - started - uploading) / 1000;
    await knex.raw('analyze');
    console.log(
      `${corpus.package}: ${pages.length} pages (uploaded in ${(uploading / 1000).toFixed(1)} s), ${chunks} chunks, indexed in ${seconds.toFixed(1)} s (${Math.round(chunks / seconds)} chunks/s)`,
    );

    const baseline = await OkapiBm25.load(knex, kb.id);
    const questions = questionsOf(join(projectRoot, 'test', 'eval', 'questions', `${corpus.package}.json`)).filter(
      (q) => !process.env.SPLIT || process.env.SPLIT === 'all' || q.split === process.env.SPLIT,
    );
    const results: { q: Question; system: string; scores: Scores }[] = [];
    const relevantOf = new Map<Question, number>();
    for (const q of questions) {
      // Relevant chunks: those of an answer page holding the answer text.
      const pageChunks = await knex('knowledge_chunks as c')
        .join('knowledge_documents as d', 'd.id', 'c.document_id')
        .where('c.knowledge_base_id', kb.id)
        .whereIn(
          'd.title',
          q.answers.map((a) => a.page),
        )
        .pluck('c.id');
      const relevant = (await passagesOf(knex, account.id, pageChunks.map(String))).filter((p) => isHit(q, p)).length;

      const t = performance.now();
      const body = await ask(kb.id, q.question);
      latencies.push(performance.now() - t);
      results.push({ q, system: 'agentry', scores: scored(q, body.agentry, relevant) });
      if (process.env.MISSES && q.split === 'dev' && !body.agentry.slice(0, 5).some((p) => isHit(q, p)))
        misses.push(
          `${q.id} ${q.question} → ${body.agentry
            .slice(0, 5)
            .map((p) => p.title)
            .join(', ')}`,
        );

      const lexemes = (await knex.raw(`select lexeme from unnest(to_tsvector('english', ?))`, [q.question])).rows.map(
        (r: { lexeme: string }) => r.lexeme,
      );
      const ids = baseline.rank(lexemes, 10);
      results.push({ q, system: 'BM25', scores: scored(q, await passagesOf(knex, account.id, ids), relevant) });
      relevantOf.set(q, relevant);
    }
    if (rewriter) {
      await knex('agent_resources')
        .where({ id: kb.id })
        .update({ values: JSON.stringify({ ...kb.values, multiQuery: true }) });
      for (const q of questions) {
        const body = await ask(kb.id, q.question);
        rewrites[body.rewrites.status === 'USED' ? 'used' : 'unavailable'] += 1;
        results.push({ q, system: 'multi-query', scores: scored(q, body.agentry, relevantOf.get(q)!) });
      }
    }
    for (const split of ['dev', 'test'])
      for (const kind of ['keyword', 'paraphrase', 'all'])
        for (const system of SYSTEMS) {
          const set = results.filter((r) => r.system === system && r.q.split === split && (kind === 'all' || r.q.kind === kind));
          if (set.length) rows.push({ corpus: corpus.package, split, kind, system, n: set.length, scores: mean(set.map((r) => r.scores)) });
        }
  }
} finally {
  server.close();
  await orm.close();
  if (!process.env.KEEP) await dropDatabase(databaseUrl);
  else console.log(`kept ${databaseUrl}`);
}

const f = (x: number) => x.toFixed(3);
const signed = (x: number) => (x >= 0 ? '+' : '') + f(x);
console.log(
  `\ncorpus              split kind        n  | agentry r@5   MRR  nDCG@10 | BM25 r@5   MRR  nDCG@10 | Δr@5${rewriter ? '   | multi-query r@5   MRR  nDCG@10 | Δr@5 vs agentry' : ''}`,
);
for (let i = 0; i < rows.length; i += SYSTEMS.length) {
  const [a, b, m] = [rows[i]!, rows[i + 1]!, rows[i + 2]];
  console.log(
    `${a.corpus.padEnd(19)} ${a.split.padEnd(5)} ${a.kind.padEnd(10)} ${String(a.n).padStart(2)}  |    ${f(a.scores.recall5)} ${f(a.scores.mrr)}  ${f(a.scores.ndcg10)} |  ${f(b.scores.recall5)} ${f(b.scores.mrr)}  ${f(b.scores.ndcg10)} | ${signed(a.scores.recall5 - b.scores.recall5)}` +
      (m ? ` |        ${f(m.scores.recall5)} ${f(m.scores.mrr)}  ${f(m.scores.ndcg10)} | ${signed(m.scores.recall5 - a.scores.recall5)}` : ''),
  );
}
for (const split of ['dev', 'test']) {
  const all = rows.filter((r) => r.split === split && r.kind === 'all');
  const overall = (system: string) => {
    const set = all.filter((r) => r.system === system);
    return set.reduce((s, r) => s + r.scores.recall5 * r.n, 0) / (set.reduce((s, r) => s + r.n, 0) || 1);
  };
  if (all.length)
    console.log(
      `overall ${split}: recall@5 agentry ${f(overall('agentry'))}, BM25 ${f(overall('BM25'))}${rewriter ? `, multi-query ${f(overall('multi-query'))}` : ''}`,
    );
}
if (rewriter)
  console.log(`multi-query on ${process.env.AI_TEXT_MODEL}: rewordings used for ${rewrites.used} questions, unavailable for ${rewrites.unavailable}`);
console.log(`query over HTTP (top 10, text only): p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms`);
for (const miss of misses) console.log(`  dev miss: ${miss}`);
