/**
 * Benchmark of formula fields and view aggregations (issue 15). Run: `node --import tsx test/bench/formulas.bench.ts`
 * (env ROWS, default 200000; COMPANIES, default 20000; ITERATIONS, default 100; KEEP_DB=1 keeps the database for EXPLAIN).
 *
 * On a fresh database and a real API over HTTP: `deals` (ROWS rows) relates to `companies` (COMPANIES rows) and has
 * two formula columns, `Expected` = Amount × Probability (a percent) and `Company staff` = sum of the company's
 * Employees (a relation aggregate). `deals_plain` holds the same rows and stored columns without the formulas. It
 * prints the p50/p95 of `rows/list` (page of 50):
 *  - with formulas, sorted by the formula `Expected` (desc);
 *  - with formulas, sorted by the stored `Amount` (desc), so formula columns are computed for the page only;
 *  - without formulas (`deals_plain`), sorted by `Amount` (desc): the baseline; and the ratio of the medians;
 * and the p50/p95 of computing four aggregations of a view over the whole table.
 */
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import pg from 'pg';
import { dropDatabase } from '../../db/database.js';
import { percentile, stopProcesses } from './bench-processes.js';
import { startDataBench } from './data-api.js';

const ROWS = Number(process.env.ROWS ?? 200_000);
const COMPANIES = Number(process.env.COMPANIES ?? 20_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 100);
const CLIENTS = 4;
const BATCH = 1000;

const server = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
server.pathname = `/agentry_bench_${randomBytes(3).toString('hex')}`;
const databaseUrl = server.toString();

const stats = (samples: number[]) => ({ p50: percentile(samples, 50), p95: percentile(samples, 95) });

const STAGES = ['Lead', 'Qualified', 'Proposal', 'Won', 'Lost'];

async function main(): Promise<void> {
  const { orm, api } = await startDataBench(databaseUrl);
  /** Creates `count` rows through rows/bulk, CLIENTS callers at a time; returns the ids in order. */
  const bulk = async (table: string, count: number, row: (i: number) => Record<string, unknown>): Promise<string[]> => {
    const ids: string[] = new Array(count);
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < count) {
          const from = next;
          next += BATCH;
          const rows = Array.from({ length: Math.min(BATCH, count - from) }, (_, k) => row(from + k));
          const created = await api('POST', `/tables/${table}/rows/bulk`, { rows });
          created.agentry.forEach((r: { id: string }, k: number) => (ids[from + k] = r.id));
        }
      }),
    );
    return ids;
  };

  const companies = await api('POST', '/tables', {
    name: 'companies',
    columns: [
      { name: 'Name', type: 'string' },
      { name: 'Employees', type: 'number', metadata: { format: 'integer' } },
    ],
  });
  const nameField = companies.fields.find((f: { name: string }) => f.name === 'Name').id;
  const columns = [
    { name: 'Title', type: 'string' },
    { name: 'Amount', type: 'number', metadata: { format: 'currency', currency: 'EUR', decimals: 2 } },
    { name: 'Probability', type: 'number', metadata: { format: 'percent' } },
    { name: 'Stage', type: 'string' },
    { name: 'Company', type: 'relation', metadata: { relatedTableId: companies.id, displayColumn: nameField, mode: 'single' } },
  ];
  const deals = await api('POST', '/tables', { name: 'deals', columns });
  const plain = await api('POST', '/tables', { name: 'deals_plain', columns });

  let started = performance.now();
  const companyIds = await bulk('companies', COMPANIES, (i) => ({ Name: `Company ${i}`, Employees: (i * 7919) % 5000 }));
  await bulk('deals', ROWS, (i) => ({
    Title: `Deal ${i}`,
    Amount: ((i * 104729) % 1_000_000) / 100,
    Probability: (i * 31) % 101,
    Stage: STAGES[i % STAGES.length],
    Company: i % 10 === 0 ? null : companyIds[(i * 13) % COMPANIES],
  }));
  const loadSeconds = (performance.now() - started) / 1000;
  // The baseline holds the very same stored values: copied in SQL, column by column.
  const raw = new pg.Client({ connectionString: databaseUrl });
  await raw.connect();
  const col = (table: any, name: string) => `"f_${table.fields.find((f: { name: string }) => f.name === name).id}"`;
  const names = columns.map((c) => c.name);
  await raw.query(
    `insert into "data"."rows_${plain.id}" (id, created_at, updated_at, ${names.map((n) => col(plain, n)).join(', ')})
     select id, created_at, updated_at, ${names.map((n) => col(deals, n)).join(', ')} from "data"."rows_${deals.id}"`,
  );

  await api('POST', '/tables/deals/fields', {
    name: 'Expected',
    type: 'formula',
    metadata: {
      expression: {
        type: 'operator',
        operator: 'multiply',
        arguments: [
          { type: 'field', field: '[Amount]' },
          { type: 'field', field: '[Probability]', fallbackValue: 0 },
        ],
      },
    },
  });
  await api('POST', '/tables/deals/fields', {
    name: 'Company staff',
    type: 'formula',
    metadata: { expression: { type: 'aggregate', operation: 'sum', relation: '[Company]', field: '[Employees]' } },
  });
  for (const id of [companies.id, deals.id, plain.id]) await raw.query(`vacuum analyze "data"."rows_${id}"`);

  const byFormula = { sort: [{ field: 'Expected', direction: 'desc' }], limit: 50 };
  const byStored = { sort: [{ field: 'Amount', direction: 'desc' }], limit: 50 };
  const first = await api('POST', '/tables/deals/rows/list', byFormula);
  const top = first.agentry[0].data;
  if (typeof top.Expected !== 'number' || !('Company staff' in top)) throw new Error(`formula values missing: ${JSON.stringify(top)}`);

  const view = await api('POST', '/tables/deals/views', { name: 'All deals' });
  const fieldId = async (name: string) =>
    (await api('GET', '/tables/deals/fields?limit=500')).agentry.find((f: { name: string }) => f.name === name).id;
  for (const [name, operation] of [
    ['Title', 'count'],
    ['Amount', 'sum'],
    ['Expected', 'avg'],
    ['Company', 'percentFilled'],
  ]) {
    await api('POST', `/tables/deals/views/${view.id}/aggregations`, { fieldId: await fieldId(name!), operation });
  }
  const compute = () => api('POST', `/tables/deals/views/${view.id}/aggregations/compute`, {});

  const runs = {
    formulaSort: [] as number[],
    formulaStoredSort: [] as number[],
    plain: [] as number[],
    compute: [] as number[],
  };
  const timed = async (samples: number[], fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  };
  for (let i = 0; i < 10; i++) {
    await api('POST', '/tables/deals/rows/list', byFormula);
    await api('POST', '/tables/deals_plain/rows/list', byStored);
    await compute();
  }
  started = performance.now();
  // Interleaved, so machine noise hits every variant alike.
  for (let i = 0; i < ITERATIONS; i++) {
    await timed(runs.formulaSort, () => api('POST', '/tables/deals/rows/list', byFormula));
    await timed(runs.formulaStoredSort, () => api('POST', '/tables/deals/rows/list', byStored));
    await timed(runs.plain, () => api('POST', '/tables/deals_plain/rows/list', byStored));
    if (i % 2 === 0) await timed(runs.compute, compute);
  }
  const computed = await compute();
  const s = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, stats(v)])) as Record<keyof typeof runs, { p50: number; p95: number }>;
  const line = (label: string, x: { p50: number; p95: number }) =>
    console.log(`  ${label.padEnd(58)} p50 ${x.p50.toFixed(2)} ms  p95 ${x.p95.toFixed(2)} ms`);

  console.log(
    `conditions: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, PostgreSQL ${(await raw.query('show server_version')).rows[0].server_version}`,
  );
  console.log(`data: deals ${ROWS} rows → companies ${COMPANIES} rows (relation Company), loaded through the API in ${loadSeconds.toFixed(1)} s`);
  console.log(`rows/list, page of 50, ${ITERATIONS} runs each:`);
  line('deals with 2 formulas, sort by formula Expected desc', s.formulaSort);
  line('deals with 2 formulas, sort by stored Amount desc', s.formulaStoredSort);
  line('deals_plain without formulas, sort by Amount desc', s.plain);
  console.log(`  ratio of medians, formula sort / without formulas: ${(s.formulaSort.p50 / s.plain.p50).toFixed(2)}x`);
  console.log(`  ratio of medians, formula columns (stored sort) / without formulas: ${(s.formulaStoredSort.p50 / s.plain.p50).toFixed(2)}x`);
  console.log(
    `aggregations/compute (count Title, sum Amount, avg formula Expected, percentFilled Company) over ${computed.rows} rows, ${runs.compute.length} runs:`,
  );
  line('compute', s.compute);
  console.log(`  values: ${computed.agentry.map((a: { operation: string; value: unknown }) => `${a.operation}=${a.value}`).join(', ')}`);

  await raw.end();
  stopProcesses();
  await orm.close();
  if (process.env.KEEP_DB === '1') console.log(`database kept: ${databaseUrl}`);
  else await dropDatabase(databaseUrl);
}

await main();
