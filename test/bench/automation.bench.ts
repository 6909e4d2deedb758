/**
 * Benchmark of the automation runtime (issue 5). Run: `node --import tsx test/bench/automation.bench.ts`
 * (env LATENCY_RUNS, default 40; THROUGHPUT_RUNS, default 500; CALLERS, default 50; CHAIN_RUNS, default 15).
 *
 * Embedded Temporal dev server, a fresh database, the API and the worker (with its outbox dispatcher) in processes
 * of their own, as `npm start` runs them. It prints:
 *  - webhook-to-completed-run latency p50/p95 of a workflow WEBHOOK → API lookup (local HTTP server) → DYNAMIC_TABLES
 *    create → API notify (POST to the local server), one call at a time, and the webhook's own answer time (202);
 *  - sustained runs per second of that workflow with CALLERS concurrent webhook callers;
 *  - beside both, the same work done by a minimal plain-Temporal program (test/bench/baseline-worker.ts): an HTTP
 *    handler that starts a workflow of the same steps as local activities (GET, INSERT into PostgreSQL, POST) and
 *    answers when it completes, interleaved with agentry's runs, and the ratios of the medians;
 *  - a chain of 40 API nodes calling the local HTTP server (run time in Temporal, per node) against plain Temporal
 *    workflows of 40 empty activities, of 40 empty local activities and of 40 local activities that GET the same server
 *    (the same shape) on their own worker process, interleaved, with the ratios of the medians (the runtime's cost per
 *    node over a bare activity and over the same work done by hand);
 *  - the per-run cost table (test/bench/run-cost.ts): PostgreSQL round trips per run of the API and the worker (and of
 *    the baseline), by statement; Temporal history events, workflow tasks, activities and local activities per run;
 *    and where a run's time goes (webhook answer, event written → workflow started, start → close, close → seen).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { percentile, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { printRunCost, QueryCounts, startAndClose, type RunCost, type Timeline } from './run-cost.js';

const LATENCY_RUNS = Number(process.env.LATENCY_RUNS ?? 40);
const THROUGHPUT_RUNS = Number(process.env.THROUGHPUT_RUNS ?? 500);
const CALLERS = Number(process.env.CALLERS ?? 50);
const CHAIN_RUNS = Number(process.env.CHAIN_RUNS ?? 15);
const CHAIN = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  const platform = await benchPlatform();
  const { env, orm, account, queue } = platform;
  const countsFolder = mkdtempSync(join(tmpdir(), 'agentry-bench-queries-'));
  const common = { ...platform.processEnv, BENCH_QUERY_COUNTS: countsFolder };
  const service = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"tier":"gold"}'));
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/customer`;
  const [apiProcess, workerProcess, baselineProcess] = await Promise.all([
    startProcess('test/bench/api-process.ts', { ...common, TEMPORAL_TASK_QUEUE: queue }, /port (\d+)/),
    // INFO: the worker says when it polls (no line per run is logged at that level).
    startProcess('worker/main.ts', { ...common, LOG_LEVEL: 'INFO', TEMPORAL_TASK_QUEUE: queue }, /polling task queue/),
    startProcess(
      'test/bench/baseline-worker.ts',
      { ...common, TEMPORAL_TASK_QUEUE: `${queue}-plain`, BASELINE_SERVICE_URL: serviceUrl },
      /ready (\d+)/,
    ),
  ]);
  const [, port] = apiProcess;
  const [, baselinePort] = baselineProcess;
  const queries = new QueryCounts(countsFolder, { API: apiProcess.pid, worker: workerProcess.pid, baseline: baselineProcess.pid });
  // The baseline of the same shape: an HTTP handler starting a plain Temporal workflow of the same three steps as
  // local activities (GET, INSERT into PostgreSQL, POST) and answering when it has completed.
  const baselineHook = async (n: number) => {
    const started = performance.now();
    const sent = Date.now();
    const res = await fetch(`http://127.0.0.1:${baselinePort}/hook`, { method: 'POST', body: JSON.stringify({ n }) });
    if (res.status !== 200) throw new Error(`baseline answered ${res.status}: ${await res.text()}`);
    const { workflowId } = (await res.json()) as { workflowId: string };
    return { ms: performance.now() - started, workflowId, sent, seen: Date.now() };
  };
  const origin = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${account.userKey}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${origin}/public/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = res.status === 204 ? null : await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  const chainWorkflow = async (name: string, nodes: object[]): Promise<number> => {
    const { id } = await api('POST', '/workflows', { name });
    let previous: string | undefined;
    for (const node of nodes) {
      const nodeId = (await api('POST', `/workflows/${id}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await api('POST', `/workflows/${id}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await api('POST', `/workflows/${id}/publish`);
    await api('PUT', `/workflows/${id}`, { status: 'ACTIVE' });
    return id;
  };

  // The 3-node workflow behind a webhook.
  await api('POST', '/tables', {
    name: 'events',
    columns: [
      { name: 'Payload', type: 'string' },
      { name: 'Answer', type: 'string' },
    ],
  });
  const tableId = (await api('GET', '/tables/events')).id;
  const hook = await api('POST', '/incoming-webhooks', { name: 'bench', useAuthentication: false });
  const entry = { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/bench', triggerByWebhookIds: [hook.id] } };
  const workflowId = await chainWorkflow('Webhook to record', [
    entry,
    { type: 'API', alias: 'lookup', data: { url: serviceUrl, method: 'GET' } },
    { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Payload: '{trigger_payload}', Answer: '{lookup}' } } },
    { type: 'API', alias: 'notify', data: { url: serviceUrl, method: 'POST', body: '{trigger_payload}' } },
  ]);
  const post = async (n: number, webhookId: string = hook.id) => {
    const started = performance.now();
    const sent = Date.now();
    const res = await fetch(`${origin}/webhooks/${webhookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    const eventId = ((await res.json()) as { eventId: string }).eventId;
    return { eventId, acceptMs: performance.now() - started, started, sent, answered: Date.now() };
  };
  // A run's completion: wait (polling PostgreSQL, not Temporal's single-connection store) until its event is
  // dispatched, then long-poll its result as the baseline's handler does.
  const knex = orm.em.getKnex();
  const completion = async (temporalId: string, eventId: string) => {
    for (;;) {
      const row = (await knex.raw(`select dispatched_at from outbox_events where id = ?`, [eventId])).rows[0];
      if (row?.dispatched_at) break;
      await sleep(2);
    }
    await env.client.workflow.getHandle(temporalId).result();
  };

  const latencies: number[] = [];
  const accepts: number[] = [];
  const baselineLatencies: number[] = [];
  const sequential = async (runs: number, record: boolean) => {
    for (let i = 0; i < runs; i += 1) {
      const { eventId, acceptMs, started, sent, answered } = await post(i);
      const runId = `automation:${workflowId}:event-${eventId}`;
      await completion(runId, eventId);
      const agentryMs = performance.now() - started;
      const seen = Date.now();
      const baseline = await baselineHook(i);
      if (!record) continue;
      latencies.push(agentryMs);
      accepts.push(acceptMs);
      baselineLatencies.push(baseline.ms);
      costs.agentry.push({ workflowId: runId, eventId, timeline: { sent, answered, seen, started: 0, closed: 0 } });
      costs.baseline.push({
        workflowId: baseline.workflowId,
        timeline: { sent: baseline.sent, answered: baseline.sent, seen: baseline.seen, started: 0, closed: 0 },
      });
    }
  };
  const costs: { agentry: RunCost[]; baseline: RunCost[] } = { agentry: [], baseline: [] };
  await sequential(5, false);
  // What the processes send to PostgreSQL with nothing to do (the dispatcher's polls, heartbeats), then per run.
  const idleFrom = await queries.snapshot();
  const idleStart = performance.now();
  await sleep(3_000);
  const idleTo = await queries.snapshot();
  const idleSeconds = (performance.now() - idleStart) / 1000;
  const phaseStart = performance.now();
  await sequential(LATENCY_RUNS, true);
  const phaseSeconds = (performance.now() - phaseStart) / 1000;
  const phaseTo = await queries.snapshot();
  for (const cost of [...costs.agentry, ...costs.baseline]) Object.assign(cost.timeline, await startAndClose(env.client, cost.workflowId));
  const written = await knex.raw(`select id, created_at from outbox_events where id = any(?::bigint[])`, [costs.agentry.map((c) => c.eventId!)]);
  const writtenAt = new Map(written.rows.map((r: { id: string; created_at: Date }) => [String(r.id), new Date(r.created_at).getTime()]));
  for (const cost of costs.agentry) (cost.timeline as Timeline).written = writtenAt.get(cost.eventId!) as number;

  // Acceptance alone: the same load on a webhook no workflow listens to (nothing runs meanwhile).
  const idle = await api('POST', '/incoming-webhooks', { name: 'nobody listens', useAuthentication: false });
  const callers = async (count: number, webhookId: string) => {
    let sent = 0;
    const accepts: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (sent < count) {
          sent += 1;
          accepts.push((await post(sent, webhookId)).acceptMs);
        }
      }),
    );
    return { accepts, ms: performance.now() - t0 };
  };
  const acceptOnly = await callers(THROUGHPUT_RUNS, idle.id);

  // Sustained throughput: CALLERS callers post THROUGHPUT_RUNS webhooks as fast as they are answered.
  const ended = async () =>
    Number((await knex.raw(`select count(*) from workflow_runs where workflow_id = ? and status <> 'running'`, [workflowId])).rows[0].count);
  const before = await ended();
  const t0 = performance.now();
  const { accepts: loadAccepts, ms: postedMs } = await callers(THROUGHPUT_RUNS, hook.id);
  while ((await ended()) < before + THROUGHPUT_RUNS) await sleep(50);
  const throughputMs = performance.now() - t0;
  // The baseline under the same load: CALLERS callers, each waiting for its run's completion before the next.
  let baselineSent = 0;
  const b0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (baselineSent < THROUGHPUT_RUNS) {
        baselineSent += 1;
        await baselineHook(baselineSent);
      }
    }),
  );
  const baselineThroughputMs = performance.now() - b0;
  const failed = Number(
    (await knex.raw(`select count(*) from workflow_runs where workflow_id = ? and status <> 'successful'`, [workflowId])).rows[0].count,
  );

  // 40 API nodes as an automation vs 40 empty activities as a plain Temporal workflow, interleaved.
  const step = (i: number) => ({ type: 'API', alias: `step${i + 1}`, data: { url: serviceUrl } });
  const chainId = await chainWorkflow(
    'Chain of 40',
    Array.from({ length: CHAIN }, (_, i) => step(i)),
  );
  const runTime = async (temporalId: string) => {
    const handle = env.client.workflow.getHandle(temporalId);
    await handle.result();
    const { startTime, closeTime } = await handle.describe();
    return closeTime!.getTime() - startTime.getTime();
  };
  const chain: number[] = [];
  const chainIds: string[] = [];
  const plain: number[] = [];
  const plainLocal: number[] = [];
  const plainLocalGet: number[] = [];
  const baseline = async (type: string, i: number) => {
    const handle = await env.client.workflow.start(type, {
      taskQueue: `${queue}-plain`,
      workflowId: `${type}-${i}-${randomBytes(3).toString('hex')}`,
      args: [CHAIN, serviceUrl],
    });
    return runTime(handle.workflowId);
  };
  let chainFrom = await queries.snapshot();
  for (let i = 0; i < CHAIN_RUNS + 3; i += 1) {
    if (i === 3) chainFrom = await queries.snapshot();
    const run = await api('POST', `/workflows/${chainId}/runs`, { payload: { i } });
    const automation = await runTime(run.id);
    const [regular, local, localGet] = [
      await baseline('plainChain', i),
      await baseline('plainLocalChain', i),
      await baseline('plainLocalGetChain', i),
    ];
    if (i >= 3) {
      chainIds.push(run.id);
      chain.push(automation);
      plain.push(regular);
      plainLocal.push(local);
      plainLocalGet.push(localGet);
    }
  }

  const chainTo = await queries.snapshot();

  const chainP50 = percentile(chain, 50);
  const plainP50 = percentile(plain, 50);
  console.log(
    `\nautomation runtime benchmark — ${cpus().length} CPUs (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('embedded Temporal dev server (SQLite), API and worker (with outbox dispatcher) in their own processes, PostgreSQL on 127.0.0.1');
  console.log(`webhook → completed run (WEBHOOK → API lookup → DYNAMIC_TABLES create → API notify), ${LATENCY_RUNS} sequential runs:`);
  console.log(
    `  latency p50 ${fmt(percentile(latencies, 50))}, p95 ${fmt(percentile(latencies, 95))}; webhook 202 answer p50 ${fmt(percentile(accepts, 50))}, p95 ${fmt(percentile(accepts, 95))}`,
  );
  const baselineP50 = percentile(baselineLatencies, 50);
  console.log(
    `  plain Temporal baseline of the same shape (HTTP handler → workflow of 3 local activities: GET, INSERT, POST → answer), interleaved: p50 ${fmt(baselineP50)}, p95 ${fmt(percentile(baselineLatencies, 95))}; ratio of medians ${(percentile(latencies, 50) / baselineP50).toFixed(2)}x`,
  );
  console.log(
    `acceptance alone: ${THROUGHPUT_RUNS} webhooks nobody listens to from ${CALLERS} concurrent callers in ${(acceptOnly.ms / 1000).toFixed(2)} s → ${((THROUGHPUT_RUNS * 1000) / acceptOnly.ms).toFixed(0)}/s (202 p50 ${fmt(percentile(acceptOnly.accepts, 50))}, p95 ${fmt(percentile(acceptOnly.accepts, 95))})`,
  );
  console.log(
    `sustained: ${THROUGHPUT_RUNS} webhooks from ${CALLERS} concurrent callers, all accepted in ${(postedMs / 1000).toFixed(2)} s (202 p50 ${fmt(percentile(loadAccepts, 50))}, p95 ${fmt(percentile(loadAccepts, 95))}),`,
  );
  console.log(
    `  all runs completed in ${(throughputMs / 1000).toFixed(2)} s → ${((THROUGHPUT_RUNS * 1000) / throughputMs).toFixed(1)} runs/s (${failed} not successful)`,
  );
  const baselineRate = (THROUGHPUT_RUNS * 1000) / baselineThroughputMs;
  console.log(
    `  plain Temporal baseline, ${THROUGHPUT_RUNS} runs from ${CALLERS} callers each waiting for its run: ${baselineRate.toFixed(1)} runs/s; agentry at ${(((THROUGHPUT_RUNS * 1000) / throughputMs / baselineRate) * 100).toFixed(0)} % of it`,
  );
  console.log(
    `chain of ${CHAIN} API nodes (local HTTP server), ${CHAIN_RUNS} runs interleaved with the baseline (time from start to close in Temporal):`,
  );
  console.log(`  automation p50 ${fmt(chainP50)} (p95 ${fmt(percentile(chain, 95))}) → ${fmt(chainP50 / CHAIN)} per node`);
  console.log(
    `  plain Temporal, ${CHAIN} empty activities: p50 ${fmt(plainP50)} (p95 ${fmt(percentile(plain, 95))}) → ${fmt(plainP50 / CHAIN)} per activity`,
  );
  console.log(`  ratio automation / plain (medians): ${(chainP50 / plainP50).toFixed(2)}x`);
  const localP50 = percentile(plainLocal, 50);
  console.log(
    `  plain Temporal, ${CHAIN} empty local activities: p50 ${fmt(localP50)} (p95 ${fmt(percentile(plainLocal, 95))}) → ratio automation / plain local ${(chainP50 / localP50).toFixed(2)}x`,
  );
  const localGetP50 = percentile(plainLocalGet, 50);
  console.log(
    `  plain Temporal of the same shape, ${CHAIN} local activities each GETting the service: p50 ${fmt(localGetP50)} (p95 ${fmt(percentile(plainLocalGet, 95))}) → ratio automation / same shape ${(chainP50 / localGetP50).toFixed(2)}x`,
  );

  await printRunCost(env.client, {
    runs: LATENCY_RUNS,
    costs,
    idle: { from: idleFrom, to: idleTo, seconds: idleSeconds },
    phase: { from: idleTo, to: phaseTo, seconds: phaseSeconds },
    chain: { from: chainFrom, to: chainTo, runs: CHAIN_RUNS, nodes: CHAIN, workflowIds: chainIds },
  });

  service.close();
  rmSync(countsFolder, { recursive: true, force: true });
  stopProcesses();
  await sleep(500);
  await platform.close();
}

main().catch(async (error) => {
  console.error(error);
  stopProcesses();
  process.exit(1);
});
