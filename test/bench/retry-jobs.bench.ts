/**
 * Benchmark of retry jobs (issue 44). Run: `node --import tsx test/bench/retry-jobs.bench.ts`
 * (env RUNS, default 200: runs per round; ROUNDS, default 3; CALLERS, default 20; TEMPORAL=cluster as burst.bench.ts;
 * BASELINE_DIR: a checkout of an earlier commit, e.g. `git worktree add /tmp/before <commit>` with its node_modules,
 * measured in the same sitting: each round then runs once on each checkout's API and worker, in alternating order).
 *
 * Embedded Temporal dev server, a fresh database, the API and one worker process; the workflow WEBHOOK → API → API →
 * API on a local HTTP server (the third call's path can be made to answer 500). Each round, in one sitting:
 *  - fresh: RUNS webhooks from CALLERS callers as fast as they are answered; first post to last run's end → runs/s;
 *  - retry job: RUNS runs failing at the third node, the service fixed, one job retrying them from the failed node;
 *    the job's start to its last retry's end → runs/s (its retries are background runs: admitted behind fresh runs,
 *    in a share of the admission bound, and the job queues a batch only when its previous ones have run);
 *  - latency: a second account's webhook runs, one after the other (each waits for its run's end), post → run end:
 *    alone, during the fresh runs and while the round's job retries its RUNS runs (both throughputs are measured with
 *    these probe runs beside them).
 * It prints each round, the medians over rounds and their ratios (retry job against fresh; latency during a job
 * against alone: the median over rounds of each round's p50 and p99, and the percentiles of every round's samples).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { RETRY_JOB_BATCH } from '../../api/temporal/retry-jobs.js';
import { backgroundSlots } from '../../db/automations/admission.js';
import { DEFAULT_SLOTS_PER_WORKER } from '../../lib/config.js';
import { benchPlatform } from './bench-platform.js';
import { benchApi, percentile, runBench, startProcess, stopProcesses } from './bench-processes.js';

const RUNS = Number(process.env.RUNS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CALLERS = Number(process.env.CALLERS ?? 20);
const BASELINE_DIR = process.env.BASELINE_DIR;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => percentile(values, 50);
const ms = (value: number) => `${value.toFixed(0)} ms`;

interface Round {
  fresh: number;
  retry: number;
  alone: number[];
  duringFresh: number[];
  during: number[];
}

async function main(): Promise<void> {
  const platform = await benchPlatform();
  const knex = platform.orm.em.getKnex();
  const other = await bootstrapAccount(platform.orm.em.fork(), 'Other', 'other@example.test');
  let port = '';
  /** Starts the API and a worker of the checkout `dir` (this one when undefined); answers how to stop them. */
  const startSide = async (dir?: string) => {
    const [worker, api] = await Promise.all([
      startProcess('worker/main.ts', { ...platform.processEnv, LOG_LEVEL: 'INFO' }, /polling task queue/, undefined, dir),
      startProcess('test/bench/api-process.ts', platform.processEnv, /port (\d+)/, undefined, dir),
    ]);
    port = api[1]!;
    return async () => {
      const exited = [worker.pid, api.pid].map((pid) => {
        process.kill(pid, 'SIGTERM');
        return (async () => {
          for (;;) {
            try {
              process.kill(pid, 0);
            } catch {
              return;
            }
            await sleep(100);
          }
        })();
      });
      await Promise.all(exited);
      // The stopped worker's heartbeat would count it alive for 20 s more, doubling the next worker's bound.
      await knex.raw('delete from worker_heartbeats');
    };
  };
  let stopSide = await startSide();
  let failing = false;
  const service = createServer((req, res) => {
    res.statusCode = failing && req.url === '/step-3' ? 500 : 200;
    res.setHeader('content-type', 'application/json').end('{"ok":true}');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

  /** WEBHOOK → API /step-1 → /step-2 → /step-3, ACTIVE behind a webhook of its own. */
  const setUp = async (key: string, steps = ['step-1', 'step-2', 'step-3']) => {
    const api = (method: string, path: string, body?: unknown) => benchApi(port, key)(method, path, body);
    const hook = await api('POST', '/incoming-webhooks', { name: 'retry bench', useAuthentication: false });
    const { id } = await api('POST', '/workflows', { name: 'Three calls' });
    let previous: string | undefined;
    for (const node of [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/bench', triggerByWebhookIds: [hook.id] } },
      ...steps.map((step) => ({ type: 'API', data: { url: `${origin}/${step}`, method: 'GET' } })),
    ]) {
      const nodeId = (await api('POST', `/workflows/${id}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await api('POST', `/workflows/${id}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await api('PUT', `/workflows/${id}`, { status: 'ACTIVE' });
    return { api, hookId: hook.id as string, workflowId: id as number };
  };
  const flow = await setUp(platform.account.userKey);
  // The latency probe's workflow never fails (its third call is to another path).
  const probe = await setUp(other.userKey, ['step-1', 'step-2', 'probe-3']);

  const post = async (hookId: string, n: number): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/${hookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    return ((await res.json()) as { eventId: string }).eventId;
  };
  const ended = async (workflowId: number, since: Date, status?: string): Promise<number> =>
    Number(
      (
        await knex.raw(
          `select count(*) from workflow_runs where workflow_id = ? and started_at >= ? and status <> 'running' ${status ? 'and status = ?' : ''}`,
          [workflowId, since, ...(status ? [status] : [])],
        )
      ).rows[0].count,
    );
  const until = async (what: string, done: () => Promise<boolean>, timeoutMs = 600_000) => {
    const stop = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > stop) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  };
  let offset = 0;
  /** `runs` webhooks of the main workflow from CALLERS callers; resolves when all are accepted. */
  const burst = async (runs = RUNS) => {
    let sent = 0;
    const base = (offset += 10 * RUNS);
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (sent < runs) await post(flow.hookId, base + (sent += 1));
      }),
    );
  };
  /** Probe runs one after the other while `busy()` holds (at least `min`): each post → its run's end, in ms. */
  const latencies = async (busy: () => boolean, min: number): Promise<number[]> => {
    const samples: number[] = [];
    while (busy() || samples.length < min) {
      const start = Date.now();
      const runId = `automation:${probe.workflowId}:event-${await post(probe.hookId, samples.length)}`;
      await until(
        'a probe run',
        async () => (await knex.raw(`select 1 from workflow_runs where id = ? and status <> 'running'`, [runId])).rows.length > 0,
      );
      samples.push(Date.now() - start);
    }
    return samples;
  };
  /** Warm-up of freshly started processes (their JIT and caches): a quarter round of runs. */
  const warmUp = async () => {
    const warm = new Date();
    await burst(Math.ceil(RUNS / 4));
    await until('the warm-up', async () => (await ended(flow.workflowId, warm)) >= Math.ceil(RUNS / 4));
  };

  const round = async (): Promise<Round> => {
    // Fresh runs, with the probe's latency meanwhile.
    const freshStart = new Date();
    let freshDone = false;
    const duringFresh = latencies(() => !freshDone, 1);
    await burst();
    await until('the fresh runs', async () => (await ended(flow.workflowId, freshStart)) >= RUNS);
    const fresh = (RUNS * 1000) / (Date.now() - freshStart.getTime());
    freshDone = true;

    // Runs failing at their third node, then the probe's latency alone.
    failing = true;
    const failStart = new Date();
    await burst();
    await until('the failing runs', async () => (await ended(flow.workflowId, failStart, 'failed')) >= RUNS);
    failing = false;
    const alone = await latencies(() => false, 50);
    const filter = { status: 'failed', from: failStart.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const body = { filter, from: 'failed-node', graph: 'original' };
    await until(
      'visibility to list the failed runs',
      async () => (await flow.api('POST', `/workflows/${flow.workflowId}/retries`, { ...body, dryRun: true })).count === RUNS,
    );

    // The retry job, with the probe's latency meanwhile.
    const jobStart = Date.now();
    const job = await flow.api('POST', `/workflows/${flow.workflowId}/retries`, body);
    let jobDone = false;
    const during = latencies(() => !jobDone, 1);
    await until('the retry job', async () => {
      const state = await flow.api('GET', `/workflows/${flow.workflowId}/retries/${job.id}`);
      if (state.status !== 'completed' || state.running > 0) return false;
      if (state.succeeded !== RUNS) throw new Error(`the job retried ${state.succeeded} of ${RUNS} runs: ${JSON.stringify(state)}`);
      return true;
    });
    const retry = (RUNS * 1000) / (Date.now() - jobStart);
    jobDone = true;
    return { fresh, retry, alone, duringFresh: await duringFresh, during: await during };
  };

  const sides: { label: string; dir?: string; rounds: Round[] }[] = [
    ...(BASELINE_DIR ? [{ label: `baseline (${BASELINE_DIR})`, dir: BASELINE_DIR, rounds: [] }] : []),
    { label: 'agentry', rounds: [] },
  ];
  let running: string | undefined = 'agentry';
  await warmUp();
  for (let r = 0; r < ROUNDS; r += 1) {
    // With a baseline, the order alternates from round to round, so a drift of the machine's load favours neither.
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      if (running !== side.label) {
        await stopSide();
        await until(
          'no run in flight',
          async () => Number((await knex.raw(`select count(*) from workflow_runs where status = 'running'`)).rows[0].count) === 0,
        );
        stopSide = await startSide(side.dir);
        running = side.label;
        await warmUp();
      }
      side.rounds.push(await round());
      console.log(`${side.label} round ${r + 1} measured`);
    }
  }

  console.log(
    `\nretry-job benchmark — ${cpus().length} CPUs (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `${platform.temporalKind}, API and 1 worker process, admission defaults; WEBHOOK → API → API → API on a local server; ` +
      `${RUNS} runs a round, ${ROUNDS} rounds, ${CALLERS} callers; this checkout's retry jobs queue ${RETRY_JOB_BATCH.batchSize} runs every ${RETRY_JOB_BATCH.pauseMs} ms at most, ` +
      `as background runs (at most ${backgroundSlots(DEFAULT_SLOTS_PER_WORKER)} of the ${DEFAULT_SLOTS_PER_WORKER} slots at the starting bound)`,
  );
  for (const { label, rounds } of sides) {
    console.log(`\n${label}:`);
    for (const [i, r] of rounds.entries()) {
      const latency = (samples: number[]) => `p50 ${ms(percentile(samples, 50))} p99 ${ms(percentile(samples, 99))} (${samples.length} runs)`;
      console.log(
        `round ${i + 1}: fresh ${r.fresh.toFixed(1)} runs/s, retry job ${r.retry.toFixed(1)} runs/s; probe latency alone ${latency(r.alone)}, ` +
          `during the fresh runs ${latency(r.duringFresh)}, during the job ${latency(r.during)}`,
      );
    }
    const fresh = median(rounds.map((r) => r.fresh));
    const retry = median(rounds.map((r) => r.retry));
    const alone = rounds.flatMap((r) => r.alone);
    const during = rounds.flatMap((r) => r.during);
    const duringFresh = rounds.flatMap((r) => r.duringFresh);
    console.log(`medians: fresh ${fresh.toFixed(1)} runs/s, retry job ${retry.toFixed(1)} runs/s → retry/fresh ${(retry / fresh).toFixed(2)}`);
    const roundMedian = (pick: (r: Round) => number[], p: number) => median(rounds.map((r) => percentile(pick(r), p)));
    const perRound = (pick: (r: Round) => number[]) => `p50 ${ms(roundMedian(pick, 50))} p99 ${ms(roundMedian(pick, 99))}`;
    console.log(
      `probe latency, median over rounds of each round's figure: alone ${perRound((r) => r.alone)}; during fresh runs ${perRound((r) => r.duringFresh)}; ` +
        `during a job ${perRound((r) => r.during)}`,
    );
    console.log(
      `  during a job against alone (medians over rounds): p50 ×${(roundMedian((r) => r.during, 50) / roundMedian((r) => r.alone, 50)).toFixed(2)}, ` +
        `p99 ×${(roundMedian((r) => r.during, 99) / roundMedian((r) => r.alone, 99)).toFixed(2)}`,
    );
    const both = (samples: number[]) => `p50 ${ms(percentile(samples, 50))} p99 ${ms(percentile(samples, 99))}`;
    console.log(`probe latency over all rounds' samples: alone ${both(alone)}; during fresh runs ${both(duringFresh)}; during a job ${both(during)}`);
  }

  service.close();
  await stopSide();
  stopProcesses();
  await sleep(500);
  await platform.close();
}

runBench(main);
