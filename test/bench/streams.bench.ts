/**
 * Conversation streams at scale: STREAMS (default 10,000) event streams open on one API process, each on a
 * conversation of its own. Prints the PostgreSQL transactions per second while they are all idle, the API process's
 * RSS and open files, and how long a message written to one conversation takes to reach its stream (p50, p99 of
 * SAMPLES writes, one at a time). With BASELINE_DIR (a checkout of an earlier commit, e.g. `git worktree add
 * /tmp/agentry-polling 894fd4d` with node_modules linked), the same figures are measured for that API in the same
 * sitting, with BASELINE_STREAMS streams (default 1,000: the polling design reads 8 times a second per stream).
 *
 *   node --import tsx test/bench/streams.bench.ts
 *
 * Each stream is one connection: the API process and this one need a file limit above STREAMS (`ulimit -n 20000` in
 * the shell that starts the bench; this machine's soft and hard limits are both 20,000 already).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { createAgent } from '../../db/agents/agents.service.js';
import { projectRoot } from '../../launcher/temporal-cli.js';
import { percentile, startProcess, stopProcesses } from './bench-processes.js';

const STREAMS = Number(process.env.STREAMS ?? 10_000);
const BASELINE_STREAMS = Number(process.env.BASELINE_STREAMS ?? 1_000);
const SAMPLES = Number(process.env.SAMPLES ?? 50);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 10);

const databaseUrl = `postgres://postgres@127.0.0.1:5432/agentry_bench_streams_${process.pid}`;
await ensureDatabase(databaseUrl);
const orm = await initORM({ databaseUrl, poolMax: 4 });
await migrate(orm);
const knex = orm.em.getKnex();
const { account, userKey } = await bootstrapAccount(orm.em.fork(), 'Streams', 'streams@example.test');
const agent = await createAgent(orm.em.fork(), account.id, { name: 'Streams' });

/** `count` conversations of the agent, made in SQL (their turns never run: the bench writes their messages). */
async function conversations(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 1000) {
    await knex('conversations').insert(
      ids
        .slice(i, i + 1000)
        .map((id) => ({ id, account_id: account.id, agent_id: agent.id, channel: 'api', started_at: new Date(), last_message_at: new Date() })),
    );
  }
  return ids;
}

async function writeMessage(conversationId: string, text: string): Promise<void> {
  await knex('conversation_messages').insert({
    account_id: account.id,
    conversation_id: conversationId,
    key: randomUUID(),
    author: 'bot',
    text,
    turn: 1,
    created_at: new Date(),
  });
}

interface OpenStream {
  /** Resolves with the time a message with `text` arrives. */
  waitFor(text: string): Promise<number>;
}

/** Opens one stream per conversation, 200 connecting at a time (more at once would overflow the listen backlog). */
async function openStreams(port: number, ids: string[]): Promise<Map<string, OpenStream>> {
  const agentHttp = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const streams = new Map<string, OpenStream>();
  const open = (id: string) =>
    new Promise<void>((connected, reject) => {
      const waiting = new Map<string, (at: number) => void>();
      const path = `/public/v1/agents/${agent.id}/conversations/${id}/stream`;
      const req = http.get({ host: '127.0.0.1', port, agent: agentHttp, path, headers: { authorization: `Bearer ${userKey}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.once('data', () => connected());
        res.on('data', (chunk: string) => {
          for (const [text, done] of waiting) {
            if (!chunk.includes(text)) continue;
            waiting.delete(text);
            done(performance.now());
          }
        });
      });
      req.on('error', reject);
      streams.set(id, { waitFor: (text) => new Promise((done) => waiting.set(text, done)) });
    });
  for (let i = 0; i < ids.length; i += 200) await Promise.all(ids.slice(i, i + 200).map(open));
  return streams;
}

const transactions = async () =>
  Number((await knex.raw(`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`)).rows[0].n);

function processFigures(pid: number): { rssMiB: number; files: number } {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return { rssMiB: Math.round(rss / 1024), files: readdirSync(`/proc/${pid}/fd`).length };
}

async function measure(label: string, dir: string, count: number): Promise<void> {
  const started = await startProcess('test/bench/api-process.ts', { DATABASE_URL: databaseUrl }, /port (\d+)/, undefined, dir);
  const api = { port: Number(started[1]), pid: started.pid };
  try {
    const ids = await conversations(count);
    const opened = performance.now();
    const streams = await openStreams(api.port, ids);
    const openSeconds = (performance.now() - opened) / 1000;
    // A stream answers its first line before its first read: the reads of the last streams opened run on for a while,
    // and PostgreSQL reports a backend's counts up to 10 s after it went idle. Idle is when an 11-second window counts
    // under 5 a second (at most 66 s: polling never is).
    const perSecondOver = async (seconds: number) => {
      const before = await transactions();
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      // This process's own two statements (the counts) are in the difference: one is subtracted here.
      return ((await transactions()) - before - 1) / seconds;
    };
    let settleSeconds = 0;
    while (settleSeconds < 66 && (await perSecondOver(11)) >= 5) settleSeconds += 11;
    const idlePerSecond = await perSecondOver(IDLE_SECONDS);
    const figures = processFigures(api.pid);
    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const text = `sample ${i} ${randomUUID()}`;
      const arrived = streams.get(id)!.waitFor(text);
      const started = performance.now();
      await writeMessage(id, text);
      latencies.push((await arrived) - started);
    }
    console.log(
      `${label}: ${count} streams open in ${openSeconds.toFixed(1)} s, their first reads done ${settleSeconds} s later; ` +
        `idle: ${idlePerSecond.toFixed(1)} PostgreSQL transactions/s; ` +
        `API RSS ${figures.rssMiB} MiB, ${figures.files} open files; message to stream p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(1)} ms (${SAMPLES} writes)`,
    );
  } finally {
    stopProcesses();
  }
}

console.log(
  `conditions: ${process.platform}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores, PostgreSQL on 127.0.0.1, idle window ${IDLE_SECONDS} s`,
);
try {
  if (process.env.BASELINE_DIR) await measure(`baseline (${process.env.BASELINE_DIR})`, process.env.BASELINE_DIR, BASELINE_STREAMS);
  if (process.env.BASELINE_DIR) await measure('agentry', projectRoot, BASELINE_STREAMS);
  await measure('agentry', projectRoot, STREAMS);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await orm.close();
  await dropDatabase(databaseUrl);
  process.exit();
}
