/**
 * A turns worker's memory as conversations accumulate (issue 42: the soak's turns worker grew 283 → 508 MiB in 30
 * minutes). Run: `node --import tsx test/bench/worker-memory.bench.ts` (env CONVERSATIONS, default 1500; CACHES,
 * default "500,100000": the WORKER_WORKFLOW_CACHE values measured in turn, each with a fresh worker process;
 * PARALLEL, default 10 conversations started at once).
 *
 * Embedded Temporal dev server, a fresh database, the API and one turns worker (`WORKER_QUEUES=turns`) in processes
 * of their own. Every conversation gets one message and its reply (a flow without AI), then stays open, as a
 * conversation does for a day. The worker's RSS is read every 250 conversations; the table gives the series, and
 * the MiB each conversation added before the cache filled and after it.
 */
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { benchApi, runBench, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { HOURS_REPLY, hoursAgent } from './bench-agent.js';

const CONVERSATIONS = Number(process.env.CONVERSATIONS ?? 1500);
const CACHES = (process.env.CACHES ?? '500,100000').split(',').map(Number);
const PARALLEL = Number(process.env.PARALLEL ?? 10);
const EVERY = 250;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

runBench(async () => {
  const platform = await benchPlatform();
  const common = platform.processEnv;
  console.log(
    `worker memory: ${CONVERSATIONS} conversations, one turn each; ${platform.temporalKind}; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const cache of CACHES) {
    // An API and a worker of their own queue, so that no earlier worker's cache holds these conversations.
    const queue = `${platform.queue}-${cache}`;
    const env = { ...common, TEMPORAL_TASK_QUEUE: queue, WORKER_QUEUES: 'turns', WORKER_WORKFLOW_CACHE: String(cache), LOG_LEVEL: 'INFO' };
    const [apiForQueue, worker] = await Promise.all([
      startProcess('test/bench/api-process.ts', env, /port (\d+)/),
      startProcess('worker/main.ts', env, /polling task queue/),
    ]);
    const talk = benchApi(apiForQueue[1]!, platform.account.userKey);
    const { base } = await hoursAgent(talk);
    const series: { conversations: number; rss: number }[] = [];
    const sample = async (conversations: number) => {
      // Garbage the last turns left is not growth: a moment for the worker's collector, then the reading.
      await sleep(2_000);
      series.push({ conversations, rss: rssMiB(worker.pid) });
    };
    await sample(0);
    for (let done = 0; done < CONVERSATIONS; done += PARALLEL) {
      await Promise.all(
        Array.from({ length: Math.min(PARALLEL, CONVERSATIONS - done) }, async () => {
          const { id } = await talk('POST', `${base}/conversations`, {});
          const reply = await talk('POST', `${base}/conversations/${id}/messages`, { text: 'When are you open?' });
          if (reply.messages[0]?.text !== HOURS_REPLY) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
        }),
      );
      if ((done + PARALLEL) % EVERY === 0 || done + PARALLEL >= CONVERSATIONS) await sample(Math.min(done + PARALLEL, CONVERSATIONS));
    }
    const slope = (from: number, to: number) => {
      const points = series.filter((p) => p.conversations >= from && p.conversations <= to);
      if (points.length < 2) return null;
      const [a, b] = [points[0]!, points.at(-1)!];
      return (b.rss - a.rss) / (b.conversations - a.conversations);
    };
    const filling = slope(0, Math.min(cache, CONVERSATIONS));
    const full = cache < CONVERSATIONS ? slope(Math.ceil(cache / EVERY) * EVERY, CONVERSATIONS) : null;
    console.log(`\nWORKER_WORKFLOW_CACHE=${cache}`);
    console.log(`  conversations  ${series.map((p) => String(p.conversations).padStart(6)).join(' ')}`);
    console.log(`  worker RSS MiB ${series.map((p) => p.rss.toFixed(0).padStart(6)).join(' ')}`);
    console.log(`  MiB per conversation while the cache fills: ${filling === null ? '-' : filling.toFixed(3)}`);
    console.log(`  MiB per conversation once it is full: ${full === null ? '- (never full)' : full.toFixed(3)}`);
    process.kill(worker.pid, 'SIGTERM');
    process.kill(apiForQueue.pid, 'SIGTERM');
  }
  stopProcesses();
  await platform.close();
  process.exit(0);
});
