/**
 * Benchmark of knowledge-base indexing and retrieval. Run: `node --import tsx test/bench/knowledge.bench.ts`
 * (env ROUNDS, default 5: timed passes over the question set; DATABASE_URL: the PostgreSQL server; KEEP=1 keeps the
 * database for a look at the plans).
 *
 * Corpus: every Markdown file under node_modules (READMEs, docs and changelogs of the project's dependencies, none
 * written for this test; licences, codes of conduct and test fixtures left out), one document each, titled by its
 * path under node_modules; byte-identical copies are one document (the content hash). Indexing runs the indexing
 * workflow's activities themselves (extract, chunk, embed — a no-op without a provider — and mark INDEXED) in
 * Temporal's MockActivityEnvironment, one document after another, into a fresh database: chunks/s is that work
 * without the Temporal server's scheduling. Queries go through `retrieve` text-only (no AI provider: what an
 * account without an embedding provider gets), top 5, over the whole corpus as one knowledge base. recall@5: the
 * share of the questions of `knowledge-questions.ts` (written by hand from the corpus) whose top 5 passages include
 * one from the manual that answers, holding the answer's text in the passage as the model reads it (title › heading
 * path, then the text: `renderedPassage`). Each miss is listed with the manuals of the passages found instead.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnowledgeActivities } from '../../activities/knowledge-indexing.activity.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { createResource } from '../../db/agents/agent-resources.service.js';
import { dropDatabase } from '../../db/database.js';
import { addDocument } from '../../db/knowledge/knowledge-documents.service.js';
import { hasPgvector } from '../../db/knowledge/knowledge-search.js';
import { renderedPassage } from '../../integrations/knowledge/grounding.js';
import { retrieve } from '../../integrations/knowledge/retrieval.js';
import type { IndexStep } from '../../lib/knowledge/indexing-contract.js';
import { createOutboundFetch } from '../../integrations/outbound/outbound-fetch.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';
import { migratedDatabase, projectRoot } from '../setup/harness.js';
import { percentile } from './bench-processes.js';
import { QUESTIONS } from './knowledge-questions.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const modules = join(projectRoot, 'node_modules');
const SKIP = /licen[cs]e|code_of_conduct|\/tests?\/|\/fixtures?\//i;

function markdownFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) markdownFiles(path, found);
    else if (stat?.isFile() && /\.md$/i.test(name) && !SKIP.test(relative(modules, path))) found.push(path);
  }
  return found;
}

const { databaseUrl, orm } = await migratedDatabase();
try {
  const em = orm.em.fork();
  const { account } = await bootstrapAccount(em, 'Bench', 'bench@example.test');
  const kb = await createResource(em, account.id, 'KNOWLEDGE_BASE', { name: 'node_modules manuals', language: 'english' });
  const files = markdownFiles(modules);
  let bytes = 0;
  const documents: { id: string; revision: number }[] = [];
  for (const path of files) {
    const content = readFileSync(path, 'utf8');
    if (!content.trim()) continue;
    const { document, created } = await addDocument(orm.em.fork(), kb, { title: relative(modules, path), content });
    if (!created) continue;
    bytes += content.length;
    documents.push({ id: document.id, revision: document.revision });
  }

  const activities = createKnowledgeActivities({ orm, provider: null, outbound: createOutboundFetch(REFUSE_PRIVATE), httpTimeoutMs: 30_000 });
  const env = new MockActivityEnvironment();
  let chunks = 0;
  const started = performance.now();
  for (const { id, revision } of documents) {
    const input = { accountId: account.id, documentId: id, revision };
    await env.run(activities.extractKnowledgeText, input);
    const cut = (await env.run(activities.chunkKnowledgeText, input)) as IndexStep;
    if (cut.current) chunks += cut.count;
    await env.run(activities.embedKnowledgeChunks, input);
    await env.run(activities.markKnowledgeIndexed, input);
  }
  const indexingMs = performance.now() - started;
  // Planner statistics only: the BM25F statistics are kept by the chunk triggers as chunks are written.
  await orm.em.getKnex().raw('analyze knowledge_chunks');

  const ask = (question: string) => retrieve(orm.em.fork(), null, { accountId: account.id, knowledgeBaseIds: [kb.id], query: question, topK: 5 });
  for (const q of QUESTIONS) await ask(q.question); // warm-up: plans and caches
  const latencies: number[] = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const q of QUESTIONS) {
      const t = performance.now();
      await ask(q.question);
      latencies.push(performance.now() - t);
    }
  const misses: string[] = [];
  for (const q of QUESTIONS) {
    const top = await ask(q.question);
    const manuals = [q.manual].flat();
    const found = top.some((p) => manuals.some((m) => p.title.endsWith(m)) && renderedPassage(p).toLowerCase().includes(q.answer.toLowerCase()));
    if (!found) misses.push(`${q.question} → ${top.map((p) => p.title).join(', ') || '(nothing)'}`);
  }

  const version = (await orm.em.getKnex().raw('show server_version')).rows[0].server_version;
  const f = (n: number) => n.toFixed(1);
  console.log('knowledge bench');
  console.log(
    `  corpus: ${files.length} Markdown files under node_modules, ${documents.length} distinct documents, ${(bytes / 1e6).toFixed(1)} MB, ${chunks} chunks`,
  );
  console.log(`  indexing: ${f(indexingMs / 1000)} s, ${Math.round(chunks / (indexingMs / 1000))} chunks/s (activities in sequence, no embeddings)`);
  console.log(
    `  query (text only, top 5, ${QUESTIONS.length} questions x ${ROUNDS}): p50 ${f(percentile(latencies, 50))} ms, p95 ${f(percentile(latencies, 95))} ms, max ${f(Math.max(...latencies))} ms`,
  );
  console.log(
    `  recall@5: ${f((100 * (QUESTIONS.length - misses.length)) / QUESTIONS.length)}% (${QUESTIONS.length - misses.length}/${QUESTIONS.length})`,
  );
  for (const miss of misses) console.log(`    missed: ${miss}`);
  console.log(
    `  conditions: PostgreSQL ${version} (pgvector ${(await hasPgvector(orm.em.getKnex())) ? 'installed' : 'absent'}), ${cpus().length} CPUs (${cpus()[0]?.model}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, Node ${process.version}`,
  );
} finally {
  await orm.close();
  if (process.env.KEEP) console.log(`  kept ${databaseUrl}`);
  else await dropDatabase(databaseUrl);
}
