/**
 * Benchmark of runs under a burst (issue 14). Run: `node --import tsx test/bench/burst.bench.ts`
 * (env BURST, default 10000; CALLERS, default 50; UNLOADED_RUNS, default 300; PAST_RUNS, default 0: runs made
 * before anything is measured, so the Temporal store holds that many past runs; RUN_CONCURRENCY /
 * RUN_SLOTS_PER_WORKER are handed to the worker as set; WORKERS, default 1: worker processes; TEMPORAL=cluster: on
 * the Temporal cluster of `npm run cluster` instead of the dev server; VACUUM=1: the unloaded rate measured again after
 * VACUUM ANALYZE of agentry's database; WARMUP, default 1000: unloaded runs before the measured ones on a fresh store,
 * where past runs do not warm the processes up).
 *
 * Embedded Temporal dev server (its store in a SQLite file, as `npm start` keeps it), a fresh database, the API and
 * one worker process (runs and turns, with its outbox dispatcher); the 3-node workflow WEBHOOK → API lookup →
 * DYNAMIC_TABLES create → API notify on a local HTTP server. It prints:
 *  - the unloaded rate: UNLOADED_RUNS webhooks from CALLERS callers that each wait for their run before the next;
 *  - the burst: BURST webhooks from CALLERS callers as fast as they are answered (acceptance rate), completions per
 *    10 s until the last run ended, by arrival decile the percentiles of the run's own latency (its start to its
 *    end, as a run log shows it) and of the time from the webhook's 202 answer to the run's end (waiting in the
 *    outbox included), makespan, and lost or doubled runs (ledger rows and created records against accepted events);
 *  - a second account sending one webhook a second during the burst: its latency p50/p95.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { DATA_SCHEMA } from '../../db/tables/types.js';
import { rowTableName } from '../../db/tables/ddl.js';
import { benchPlatform } from './bench-platform.js';
import { benchApi, percentile, startProcess, stopProcesses } from './bench-processes.js';
import { since, usage } from './cpu-usage.js';

const BURST = Number(process.env.BURST ?? 10_000);
const CALLERS = Number(process.env.CALLERS ?? 50);
const UNLOADED_RUNS = Number(process.env.UNLOADED_RUNS ?? 300);
const PAST_RUNS = Number(process.env.PAST_RUNS ?? 0);
const WORKERS = Number(process.env.WORKERS ?? 1);
const VACUUM = process.env.VACUUM === '1';
const WARMUP = Number(process.env.WARMUP ?? 1000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** CPU milliseconds a run of each process group, from the seconds `since` answered over `runs` runs. */
const cpuPerRun = (cpu: ReturnType<typeof since>, runs: number) => {
  const ms = (seconds: number) => `${((seconds * 1000) / runs).toFixed(1)} ms`;
  return `Temporal ${ms(cpu.temporal)}, worker${WORKERS > 1 ? 's' : ''} ${ms(cpu.worker)}, PostgreSQL ${ms(cpu.postgres)}, API ${ms(cpu.api)}`;
};

async function main(): Promise<void> {
  const platform = await benchPlatform();
  const { env, orm, account: burstAccount } = platform;
  const knex = orm.em.getKnex();
  const other = await bootstrapAccount(orm.em.fork(), 'Other', 'other@example.test');
  const admission = Object.fromEntries(['RUN_CONCURRENCY', 'RUN_SLOTS_PER_WORKER'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  const common = platform.processEnv;
  const [[, port]] = await Promise.all([
    startProcess('test/bench/api-process.ts', common, /port (\d+)/),
    ...Array.from({ length: WORKERS }, () => startProcess('worker/main.ts', { ...common, ...admission, LOG_LEVEL: 'INFO' }, /polling task queue/)),
  ]);
  const service = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"tier":"gold"}'));
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/customer`;

  /** The 3-node workflow of an account behind a webhook; answers the webhook id and the workflow id. */
  const setUp = async (key: string, table = 'events') => {
    const api = benchApi(port!, key);
    await api('POST', '/tables', { name: table, columns: ['Payload', 'Answer'].map((name) => ({ name, type: 'string' })) });
    const tableId = (await api('GET', `/tables/${table}`)).id;
    const hook = await api('POST', '/incoming-webhooks', { name: 'burst', useAuthentication: false });
    const { id } = await api('POST', '/workflows', { name: 'Webhook to record' });
    let previous: string | undefined;
    for (const node of [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/bench', triggerByWebhookIds: [hook.id] } },
      { type: 'API', alias: 'lookup', data: { url: serviceUrl, method: 'GET' } },
      { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Payload: '{trigger_payload}', Answer: '{lookup}' } } },
      { type: 'API', alias: 'notify', data: { url: serviceUrl, method: 'POST', body: '{trigger_payload}' } },
    ]) {
      const nodeId = (await api('POST', `/workflows/${id}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await api('POST', `/workflows/${id}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await api('POST', `/workflows/${id}/publish`);
    await api('PUT', `/workflows/${id}`, { status: 'ACTIVE' });
    return { hookId: hook.id as string, workflowId: id as number, tableId: tableId as number };
  };
  const burstFlow = await setUp(burstAccount.userKey);
  const otherFlow = await setUp(other.userKey);

  /** Posts a webhook; answers its event id and when it was accepted (epoch ms, as the ledger's times). */
  const post = async (hookId: string, n: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/${hookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    return { eventId: ((await res.json()) as { eventId: string }).eventId, acceptedAt: Date.now() };
  };
  type Ended = { event_id: string; started_at: Date; completed_at: Date; status: string };
  const endedRuns = async (workflowId: number): Promise<Ended[]> =>
    (
      await knex.raw(`select event_id, started_at, completed_at, status from workflow_runs where workflow_id = ? and status <> 'running'`, [
        workflowId,
      ])
    ).rows;
  const endedCount = async (workflowId: number) =>
    Number((await knex.raw(`select count(*) from workflow_runs where workflow_id = ? and status <> 'running'`, [workflowId])).rows[0].count);

  // Past runs: the store holds PAST_RUNS closed runs before anything is measured.
  let pastRuns = '';
  if (PAST_RUNS > 0) {
    const seed = await setUp(burstAccount.userKey, 'past');
    const seedStart = Date.now();
    let seeded = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (seeded < PAST_RUNS) await post(seed.hookId, (seeded += 1));
      }),
    );
    while ((await endedCount(seed.workflowId)) < PAST_RUNS) await sleep(2000);
    const seconds = (Date.now() - seedStart) / 1000;
    pastRuns = `${PAST_RUNS} past runs made first (${(PAST_RUNS / seconds).toFixed(1)} runs/s over ${seconds.toFixed(0)} s); Temporal store ${((await platform.storeBytes()) / 2 ** 20).toFixed(0)} MB`;
  }

  /**
   * Resolves when the run of Temporal workflow id `runId` has ended, as its ledger row says (the run's last node
   * writes its end): every waiting caller through one query every 10 ms. Each caller polling Temporal instead, and
   * retrying every 20 ms while its run still waited in the outbox for admission, loaded the dev server's one SQLite
   * connection in proportion to the wait (39 against 13 ms of Temporal CPU a run in one measurement).
   */
  const waiting = new Map<string, () => void>();
  let watching = false;
  const watch = async () => {
    watching = true;
    while (waiting.size) {
      const ended = await knex.raw(`select id from workflow_runs where id = any(?) and status <> 'running'`, [[...waiting.keys()]]);
      for (const { id } of ended.rows as { id: string }[]) {
        waiting.get(id)?.();
        waiting.delete(id);
      }
      await sleep(10);
    }
    watching = false;
  };
  const runEnded = (runId: string) =>
    new Promise<void>((resolve) => {
      waiting.set(runId, resolve);
      if (!watching) void watch();
    });

  // Unloaded: each caller waits for its run to end before sending the next.
  let unloadedSent = 0;
  const unloaded = async (runs = UNLOADED_RUNS) => {
    const start = Date.now();
    const cpuAtStart = usage();
    let sentHere = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (sentHere < runs) {
          sentHere += 1;
          unloadedSent += 1;
          const { eventId } = await post(burstFlow.hookId, -unloadedSent);
          await runEnded(`automation:${burstFlow.workflowId}:event-${eventId}`);
        }
      }),
    );
    const rate = (runs * 1000) / (Date.now() - start);
    return { rate, cpu: `CPU per run: ${cpuPerRun(since(cpuAtStart), runs)}` };
  };
  // Warm-up on a fresh store (the JIT, the worker's caches): past runs are one already.
  if (PAST_RUNS === 0 && WARMUP > 0) await unloaded(WARMUP);
  const unloadedPhases = [{ label: '', ...(await unloaded()) }];
  if (VACUUM) {
    // What dead rows cost: this machine's PostgreSQL may run with autovacuum off, production's does not.
    await knex.raw('vacuum analyze');
    unloadedPhases.push({ label: ' after VACUUM ANALYZE', ...(await unloaded()) });
  }
  const unloadedRate = unloadedPhases[0]!.rate;
  const base = await endedCount(burstFlow.workflowId);

  // The burst, with the other account's webhook once a second meanwhile.
  const accepted = new Map<string, number>();
  const order: string[] = [];
  let sent = 0;
  const burstStart = Date.now();
  const cpuBefore = usage();
  let burstDone = false;
  const otherAccepted = new Map<string, number>();
  const otherLoop = (async () => {
    for (let n = 0; !burstDone; n += 1) {
      const { eventId, acceptedAt } = await post(otherFlow.hookId, n);
      otherAccepted.set(eventId, acceptedAt);
      await sleep(1000);
    }
  })();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (sent < BURST) {
        sent += 1;
        const { eventId, acceptedAt } = await post(burstFlow.hookId, sent);
        accepted.set(eventId, acceptedAt);
        order.push(eventId);
      }
    }),
  );
  const acceptedMs = Date.now() - burstStart;
  const progress: number[] = [];
  for (let last = Date.now(); (await endedCount(burstFlow.workflowId)) < base + BURST; await sleep(500)) {
    if (Date.now() - last >= 10_000) {
      last = Date.now();
      progress.push(await endedCount(burstFlow.workflowId));
    }
    if (Date.now() - burstStart > 3_600_000) throw new Error('the burst did not end within an hour');
  }
  const cpu = since(cpuBefore);
  burstDone = true;
  await otherLoop;
  await sleep(3000);

  const ended = (await endedRuns(burstFlow.workflowId)).filter((r) => accepted.has(r.event_id));
  const byEvent = new Map<string, Ended[]>();
  for (const run of ended) byEvent.set(run.event_id, [...(byEvent.get(run.event_id) ?? []), run]);
  const lost = [...accepted.keys()].filter((id) => !byEvent.has(id)).length;
  const doubled = [...byEvent.values()].filter((runs) => runs.length > 1).length;
  // The records the runs created: a doubled side effect would show here even if the ledger did not.
  const rowTable = `"${DATA_SCHEMA}"."${rowTableName(burstFlow.tableId)}"`;
  const records = Number((await knex.raw(`select count(*) from ${rowTable} where created_at >= ?`, [new Date(burstStart)])).rows[0].count);
  const latency = (id: string) => new Date(byEvent.get(id)![0]!.completed_at).getTime() - accepted.get(id)!;
  const runLatency = (id: string) => new Date(byEvent.get(id)![0]!.completed_at).getTime() - new Date(byEvent.get(id)![0]!.started_at).getTime();
  const completions = ended.map((r) => new Date(r.completed_at).getTime() - burstStart).sort((a, b) => a - b);
  const makespan = completions.at(-1)!;
  const buckets: number[] = [];
  for (const t of completions) buckets[Math.floor(t / 10_000)] = (buckets[Math.floor(t / 10_000)] ?? 0) + 1;
  const otherEnded = (await endedRuns(otherFlow.workflowId)).filter((r) => otherAccepted.has(r.event_id));
  const otherLatencies = otherEnded.map((r) => new Date(r.completed_at).getTime() - otherAccepted.get(r.event_id)!);
  // Completions per second while the burst ran: from the first 10 s to the last full 10 s.
  const full = buckets.slice(0, Math.max(1, Math.floor(makespan / 10_000)));
  const burstRate = full.reduce((a, b) => a + (b ?? 0), 0) / (full.length * 10);

  console.log(
    `\nburst benchmark — ${cpus().length} CPUs (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `${platform.temporalKind}, API and ${WORKERS} worker process${WORKERS > 1 ? 'es' : ''}; admission ${JSON.stringify(admission) === '{}' ? 'defaults (tuned)' : JSON.stringify(admission)}; WEBHOOK → API → DYNAMIC_TABLES → API`,
  );
  console.log(pastRuns || `fresh store (PAST_RUNS=0), ${WARMUP} runs of warm-up first (WARMUP)`);
  for (const phase of unloadedPhases)
    console.log(
      `unloaded${phase.label}: ${UNLOADED_RUNS} runs, ${CALLERS} callers each waiting for its run → ${phase.rate.toFixed(1)} runs/s; ${phase.cpu}`,
    );
  console.log(`burst: ${BURST} webhooks from ${CALLERS} callers accepted in ${s(acceptedMs)} → ${((BURST * 1000) / acceptedMs).toFixed(0)}/s`);
  console.log(`  completions per 10 s: ${buckets.map((b) => b ?? 0).join(' ')}`);
  console.log(
    `  completions/s during the burst ${burstRate.toFixed(1)} (${((100 * burstRate) / unloadedRate).toFixed(0)} % of unloaded); makespan ${s(makespan)}`,
  );
  for (let d = 0; d < 10; d += 1) {
    const decile = order.slice(Math.floor((d * order.length) / 10), Math.floor(((d + 1) * order.length) / 10)).filter((id) => byEvent.has(id));
    const l = decile.map(latency);
    const r = decile.map(runLatency);
    console.log(
      `  arrival decile ${d + 1}: run p50 ${s(percentile(r, 50))}, p95 ${s(percentile(r, 95))}; accepted → ended p50 ${s(percentile(l, 50))}, p95 ${s(percentile(l, 95))}, max ${s(Math.max(...l))}`,
    );
  }
  console.log(
    `  lost ${lost}, doubled ${doubled} (ledger); records created ${records} for ${BURST} accepted; Temporal store now ${((await platform.storeBytes()) / 2 ** 20).toFixed(0)} MB`,
  );
  console.log(`  CPU per run during the burst: ${cpuPerRun(cpu, BURST)}`);
  const sample = await env.client.workflow.getHandle(`automation:${burstFlow.workflowId}:event-${order[0]}`).describe();
  const history = await env.client.workflow.getHandle(sample.workflowId).fetchHistory();
  const tasks = history.events!.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  console.log(`  one run's history: ${sample.historyLength} events, ${tasks} workflow task${tasks === 1 ? '' : 's'}, ${sample.historySize} bytes`);
  console.log(
    `second account, one webhook a second during the burst: ${otherLatencies.length} runs, latency p50 ${s(percentile(otherLatencies, 50))}, p95 ${s(percentile(otherLatencies, 95))}`,
  );

  service.close();
  stopProcesses();
  await sleep(500);
  await platform.close();
}

main().catch(async (error) => {
  console.error(error);
  stopProcesses();
  process.exit(1);
});
