/**
 * Benchmark of the Objects/Tables data plane (issue 3). Run: `node --import tsx test/bench/rows.bench.ts`
 * (env ROWS, default 200000; CLIENTS, default 4; BATCH, default 1000; ITERATIONS, default 200).
 *
 * On a fresh database and a real API over HTTP it prints:
 *  - bulk create throughput through `POST /tables/{name}/rows/bulk` (rows/s);
 *  - `POST rows/list` p50/p95 for a two-condition filter + sort + page of 50, and the same query as raw SQL on the
 *    same table in the same run, with the ratio of the medians.
 */
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import pg from 'pg';
import { dropDatabase } from '../../db/database.js';
import { percentile, stopProcesses } from './bench-processes.js';
import { CUSTOMERS_TABLE, STAGES, TAGS, customerRow } from './customers-table.js';
import { startDataBench } from './data-api.js';

const ROWS = Number(process.env.ROWS ?? 200_000);
const CLIENTS = Number(process.env.CLIENTS ?? 4);
const BATCH = Number(process.env.BATCH ?? 1000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 200);

const server = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
server.pathname = `/agentry_bench_${randomBytes(3).toString('hex')}`;
const databaseUrl = server.toString();

function stats(samples: number[]) {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function main(): Promise<void> {
  const { orm, account, port, api } = await startDataBench(databaseUrl);
  const base = `http://127.0.0.1:${port}/public/v1`;
  const headers = { authorization: `Bearer ${account.userKey}`, 'content-type': 'application/json' };

  const table = await api('POST', '/tables', CUSTOMERS_TABLE);
  const fieldId = (name: string) => table.fields.find((f: { name: string }) => f.name === name).id;
  for (const name of STAGES) await api('POST', `/tables/customers/fields/${fieldId('Stage')}/tags`, { name });
  for (const name of TAGS) await api('POST', `/tables/customers/fields/${fieldId('Tags')}/tags`, { name });

  // Bulk create: CLIENTS concurrent callers, BATCH rows per request.
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < ROWS) {
        const from = next;
        next += BATCH;
        const rows = Array.from({ length: Math.min(BATCH, ROWS - from) }, (_, k) => customerRow(from + k));
        // The answer (the created rows) is read but not parsed: the client's own work stays out of the figure.
        const res = await fetch(`${base}/tables/customers/rows/bulk`, { method: 'POST', headers, body: JSON.stringify({ rows }) });
        const body = await res.text();
        if (res.status !== 201) throw new Error(`bulk: ${res.status} ${body.slice(0, 500)}`);
      }
    }),
  );
  const bulkSeconds = (performance.now() - started) / 1000;
  const raw = new pg.Client({ connectionString: databaseUrl });
  await raw.connect();
  await raw.query(`analyze "data"."rows_${table.id}"`);

  const query = {
    filter: {
      and: [
        { field: 'Stage', operator: 'eq', value: 'Won' },
        { field: 'Score', operator: 'gte', value: 50 },
      ],
    },
    sort: [{ field: 'Amount', direction: 'desc' }],
    limit: 50,
  };
  const won = (await raw.query(`select id from data_field_options where field_id = $1 and name = 'Won'`, [fieldId('Stage')])).rows[0].id;
  const sql = `select * from "data"."rows_${table.id}" where "f_${fieldId('Stage')}" = $1 and "f_${fieldId('Score')}" >= $2
    order by "f_${fieldId('Amount')}" desc nulls last, "id" asc limit 51`;

  const apiTimes: number[] = [];
  const sqlTimes: number[] = [];
  let pageSize = 0;
  for (let i = 0; i < 20; i++) {
    await api('POST', '/tables/customers/rows/list', query);
    await raw.query(sql, [won, 50]);
  }
  // Interleaved, so machine noise hits both sides alike.
  for (let i = 0; i < ITERATIONS; i++) {
    let t = performance.now();
    const page = await api('POST', '/tables/customers/rows/list', query);
    apiTimes.push(performance.now() - t);
    pageSize = page.agentry.length;
    t = performance.now();
    await raw.query(sql, [won, 50]);
    sqlTimes.push(performance.now() - t);
  }
  const apiStats = stats(apiTimes);
  const sqlStats = stats(sqlTimes);
  const count = await api('POST', '/tables/customers/rows/count', { filter: query.filter });

  console.log(
    `conditions: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, PostgreSQL ${(await raw.query('show server_version')).rows[0].server_version}`,
  );
  console.log(`table: ${ROWS} rows, 12 fields (string×4, number×3, boolean, date, dateOnly, select, multi select)`);
  console.log(
    `bulk create: ${ROWS} rows in ${bulkSeconds.toFixed(1)} s = ${Math.round(ROWS / bulkSeconds)} rows/s (${CLIENTS} clients, ${BATCH} rows/request)`,
  );
  console.log(`rows/list (Stage = Won and Score >= 50, sort Amount desc, page ${pageSize} of ${count.count} matches), ${ITERATIONS} runs:`);
  console.log(`  API over HTTP  p50 ${apiStats.p50.toFixed(2)} ms  p95 ${apiStats.p95.toFixed(2)} ms`);
  console.log(`  raw SQL        p50 ${sqlStats.p50.toFixed(2)} ms  p95 ${sqlStats.p95.toFixed(2)} ms`);
  console.log(`  ratio of medians API / raw SQL: ${(apiStats.p50 / sqlStats.p50).toFixed(2)}x`);

  await raw.end();
  stopProcesses();
  await orm.close();
  await dropDatabase(databaseUrl);
}

await main();
