/**
 * Benchmark of the conversation runtime (issue 13). Run: `node --import tsx test/bench/conversation.bench.ts`
 * (env TURNS, default 100; WARMUP, default 50: unmeasured turns of each side first; CONVERSATIONS, default 20;
 * TURNS_EACH, default 20; BACKLOG, default 5000; SEPARATE=1 for a worker process per queue).
 *
 * Embedded Temporal dev server, a fresh database, the API and the worker in processes of their own, as `npm start`
 * runs them; no AI provider (the flows say static messages). It prints:
 *  - turn latency p50/p95 (user message in, agent messages out, over HTTP) of a flow without AI calls, one turn at a time,
 *    and beside it the same turn done by a minimal plain-Temporal program on the same dev server (an HTTP handler
 *    sending an update to a long-lived workflow that INSERTs the message and the reply as local activities and
 *    answers; test/bench/baseline-worker.ts), interleaved turn by turn, with the ratio of the medians;
 *  - turns per second with CONVERSATIONS conversations talking at once (each one turn at a time);
 *  - turn latency p50 while BACKLOG automation runs are queued (webhooks of a WEBHOOK → API → API workflow sent just
 *    before), with the backlog still pending when the measurement ended, and the ratio to the idle p50.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { benchApi, percentile, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { HOURS_REPLY, hoursAgent } from './bench-agent.js';

const TURNS = Number(process.env.TURNS ?? 100);
const CONVERSATIONS = Number(process.env.CONVERSATIONS ?? 20);
const TURNS_EACH = Number(process.env.TURNS_EACH ?? 20);
const BACKLOG = Number(process.env.BACKLOG ?? 5000);
/** Turns of each side before the measured ones, so both are measured warm (JIT-compiled), as long-lived processes run. */
const WARMUP = Number(process.env.WARMUP ?? 50);
/**
 * SEPARATE=1: runs and turns in two worker processes (WORKER_QUEUES), the runs worker at WORKER_NICE=RUNS_NICE
 * (default 10), instead of one process polling both.
 */
const SEPARATE = process.env.SEPARATE === '1';

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  const platform = await benchPlatform();
  const { orm, account } = platform;
  const common = platform.processEnv;
  const worker = (queues: string, nice = '0') =>
    startProcess('worker/main.ts', { ...common, LOG_LEVEL: 'INFO', WORKER_QUEUES: queues, WORKER_NICE: nice }, /polling task queue/);
  const [[, port], [, baselinePort]] = await Promise.all([
    startProcess('test/bench/api-process.ts', common, /port (\d+)/),
    startProcess(
      'test/bench/baseline-worker.ts',
      { ...common, TEMPORAL_TASK_QUEUE: `${platform.queue}-plain`, BASELINE_REPLY: HOURS_REPLY },
      /ready (\d+)/,
    ),
    ...(SEPARATE ? [worker('runs', process.env.RUNS_NICE ?? '10'), worker('turns')] : [worker('runs,turns')]),
  ]);
  const api = benchApi(port!, account.userKey);

  // An agent whose default flow greets and whose "hours" flow answers, with no AI call anywhere.
  const { base } = await hoursAgent(api);

  const turn = async (conversationId: string) => {
    const started = performance.now();
    const reply = await api('POST', `${base}/conversations/${conversationId}/messages`, { text: 'When are you open?' });
    if (reply.messages[0]?.text !== HOURS_REPLY) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
    return performance.now() - started;
  };
  // The plain-Temporal turn of the same shape, on its own long-lived workflow.
  const baseline = `http://127.0.0.1:${baselinePort}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseline}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`baseline answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ id?: string; text?: string }>;
  };
  const baselineTurn = async (conversationId: string) => {
    const started = performance.now();
    const { text } = await post(`/conversations/${conversationId}/messages`, { text: 'When are you open?' });
    if (text !== HOURS_REPLY) throw new Error(`unexpected baseline reply ${text}`);
    return performance.now() - started;
  };
  const baselineSamples: number[] = [];
  /** `count` turns of one conversation; with `interleaved`, each followed by a baseline turn. */
  const latencies = async (count: number, interleaved = false) => {
    const { id } = await api('POST', `${base}/conversations`, {});
    const plain = interleaved ? (await post('/conversations', {})).id! : '';
    for (let i = 0; i < WARMUP; i += 1) await Promise.all([turn(id), interleaved && baselineTurn(plain)]);
    const samples: number[] = [];
    for (let i = 0; i < count; i += 1) {
      samples.push(await turn(id));
      if (interleaved) baselineSamples.push(await baselineTurn(plain));
    }
    return samples;
  };

  const idle = await latencies(TURNS, true);

  const conversations = await Promise.all(
    Array.from({ length: CONVERSATIONS }, async () => (await api('POST', `${base}/conversations`, {})).id as string),
  );
  const t0 = performance.now();
  await Promise.all(
    conversations.map(async (id) => {
      for (let i = 0; i < TURNS_EACH; i += 1) await turn(id);
    }),
  );
  const concurrentSeconds = (performance.now() - t0) / 1000;

  // The backlog: BACKLOG webhooks of a workflow that calls a local service twice, accepted into the outbox.
  const service = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'));
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/x`;
  const hook = await api('POST', '/incoming-webhooks', { name: 'backlog', useAuthentication: false });
  const { id: workflowId } = await api('POST', '/workflows', { name: 'Backlog' });
  let previous: string | undefined;
  for (const node of [
    { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/b', triggerByWebhookIds: [hook.id] } },
    { type: 'API', data: { url: serviceUrl, method: 'GET' } },
    { type: 'API', data: { url: serviceUrl, method: 'POST', body: '{trigger_payload}' } },
  ]) {
    const nodeId = (await api('POST', `/workflows/${workflowId}/nodes`, node)).nodes.at(-1).nodeId;
    if (previous) await api('POST', `/workflows/${workflowId}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
    previous = nodeId;
  }
  await api('POST', `/workflows/${workflowId}/publish`);
  await api('PUT', `/workflows/${workflowId}`, { status: 'ACTIVE' });
  let sent = 0;
  const b0 = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (sent < BACKLOG) {
        sent += 1;
        const res = await fetch(`http://127.0.0.1:${port}/webhooks/${hook.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"n":1}',
        });
        if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const acceptSeconds = (performance.now() - b0) / 1000;
  const pending = async () => {
    const knex = orm.em.getKnex();
    const outbox = (await knex.raw('select count(*)::int as n from outbox_events where dispatched_at is null')).rows[0].n as number;
    const done = (await knex.raw("select count(*)::int as n from workflow_runs where status <> 'running'")).rows[0].n as number;
    return { outbox, unfinished: BACKLOG - done };
  };
  const before = await pending();
  const loaded = await latencies(Math.min(TURNS, 50));
  const after = await pending();

  const p = (samples: number[], q: number) => percentile(samples, q);
  console.log(`conversation runtime benchmark — ${cpus().length} cores, ${(totalmem() / 1e9).toFixed(1)} GB, load ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    `embedded Temporal dev server, API and ${SEPARATE ? `two worker processes (runs at nice ${process.env.RUNS_NICE ?? '10'}; turns)` : 'one worker process (runs and turns)'}, no AI provider; flow: TRIGGER_INTENT → SAY_AI (static)`,
  );
  console.log(`turn latency, one at a time (${idle.length} turns): p50 ${fmt(p(idle, 50))}, p95 ${fmt(p(idle, 95))}`);
  console.log(
    `  plain Temporal baseline of the same shape (HTTP handler → update of a long-lived workflow: INSERT the message, INSERT the reply → answer), interleaved: p50 ${fmt(p(baselineSamples, 50))}, p95 ${fmt(p(baselineSamples, 95))}; ratio of medians ${(p(idle, 50) / p(baselineSamples, 50)).toFixed(2)}x`,
  );
  console.log(
    `throughput: ${CONVERSATIONS} conversations × ${TURNS_EACH} turns in ${concurrentSeconds.toFixed(1)} s = ${((CONVERSATIONS * TURNS_EACH) / concurrentSeconds).toFixed(1)} turns/s`,
  );
  console.log(
    `backlog: ${BACKLOG} webhooks accepted in ${acceptSeconds.toFixed(1)} s; unfinished runs ${before.unfinished} (outbox ${before.outbox}) → ${after.unfinished} (outbox ${after.outbox}) during the measurement`,
  );
  console.log(
    `turn latency with the backlog (${loaded.length} turns): p50 ${fmt(p(loaded, 50))}, p95 ${fmt(p(loaded, 95))}; p50 ratio to idle ${(p(loaded, 50) / p(idle, 50)).toFixed(2)}x`,
  );
  service.close();
  stopProcesses();
  await platform.close();
}

main().catch((error) => {
  console.error(error);
  stopProcesses();
  process.exit(1);
});
