/**
 * Rate limits shared through PostgreSQL: (1) what a limited request adds, `GET /public/v1/me` one at a time against an
 * API process without a per-key limit and one with a limit it never reaches, in alternating rounds (medians of each,
 * and their difference); (2) two API processes on one database with a per-key limit of RATE/s (burst RATE), offered
 * about 5 × RATE requests a second for SECONDS seconds spread over both: how many they granted together against the
 * documented RATE × (SECONDS + 1).
 *
 *   node --import tsx test/bench/limits.bench.ts
 */
import { cpus } from 'node:os';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { percentile, startProcess, stopProcesses } from './bench-processes.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const PER_ROUND = Number(process.env.PER_ROUND ?? 200);
const RATE = Number(process.env.RATE ?? 20);
const SECONDS = Number(process.env.SECONDS ?? 10);

const databaseUrl = `postgres://postgres@127.0.0.1:5432/agentry_bench_limits_${process.pid}`;
await ensureDatabase(databaseUrl);
const orm = await initORM({ databaseUrl, poolMax: 2 });
await migrate(orm);
const { userKey } = await bootstrapAccount(orm.em.fork(), 'Limits', 'limits@example.test');
const other = await bootstrapAccount(orm.em.fork(), 'Limits 2', 'limits2@example.test');
await orm.close();

const api = async (limit?: string) =>
  Number(
    (
      await startProcess(
        'test/bench/api-process.ts',
        { DATABASE_URL: databaseUrl, ...(limit ? { BENCH_RATE_LIMIT_PER_KEY: limit } : {}) },
        /port (\d+)/,
      )
    )[1],
  );

const me = async (port: number, key: string) =>
  (await fetch(`http://127.0.0.1:${port}/public/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status;

async function timed(port: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    const started = performance.now();
    if ((await me(port, userKey)) !== 200) throw new Error('a request was refused');
    times.push(performance.now() - started);
  }
  return times;
}

console.log(`conditions: Node ${process.version}, ${cpus().length} cores, PostgreSQL on 127.0.0.1, API processes of test/bench/api-process.ts`);
try {
  const [plain, limited] = [await api(), await api('1000000/1000000')];
  for (const port of [plain, limited]) await timed(port); // warm-up
  const medians = { plain: [] as number[], limited: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    medians.plain.push(percentile(await timed(plain), 50));
    medians.limited.push(percentile(await timed(limited), 50));
  }
  const [p, l] = [percentile(medians.plain, 50), percentile(medians.limited, 50)];
  console.log(
    `added latency: GET /me p50 ${p.toFixed(3)} ms without a limit, ${l.toFixed(3)} ms with one (median of ${ROUNDS} rounds of ${PER_ROUND}): ` +
      `+${(l - p).toFixed(3)} ms per limited request`,
  );

  const pair = [await api(`${RATE}/${RATE}`), await api(`${RATE}/${RATE}`)];
  let granted = 0;
  let refused = 0;
  const until = Date.now() + SECONDS * 1000;
  let i = 0;
  while (Date.now() < until) {
    const batch = await Promise.all(Array.from({ length: RATE / 2 }, () => me(pair[i++ % 2]!, other.userKey)));
    granted += batch.filter((s) => s === 200).length;
    refused += batch.filter((s) => s === 429).length;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const documented = RATE * (SECONDS + 1);
  console.log(
    `two API processes, limit ${RATE}/s (burst ${RATE}), ${SECONDS} s: ${granted} granted, ${refused} refused; ` +
      `documented at most ${documented}: ${((granted / documented) * 100).toFixed(1)} % of it (per-process buckets would allow up to ${2 * documented})`,
  );
} finally {
  stopProcesses();
  await dropDatabase(databaseUrl);
}
