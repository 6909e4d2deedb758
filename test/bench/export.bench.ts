/**
 * Benchmark of the CSV and XLSX exports (issue 16). Run: `node --import tsx test/bench/export.bench.ts`
 * (env ROWS, default 200000; FORMATS=csv,xlsx by default; BENCH_DATABASE_URL=<url> keeps the filled database there and
 * reuses it on the next run, so that several versions of the code can be compared on the same data in one session).
 *
 * Fills a fresh database with ROWS rows of the 12-field customers table through the API, then exports every row
 * to CSV and to XLSX, each from a fresh API process, reading each download as fast as it comes. Prints
 * rows/s, the time to the first byte, and the API process's peak resident memory over its idle level (sampled
 * from /proc every 10 ms). Targets: CSV ≥ 100,000 rows/s, XLSX ≥ 25,000 rows/s, < 150 MB over idle.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import type { ExportTiming } from '../../db/tables/export/export-timing.js';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { percentile, startProcess, stopProcesses } from './bench-processes.js';
import { CUSTOMERS_TABLE, STAGES, TAGS, customerRow } from './customers-table.js';

const ROWS = Number(process.env.ROWS ?? 200_000);
/** Runs of each format, alternated (csv, xlsx, csv, …); the median is the figure. */
const RUNS = Number(process.env.RUNS ?? 1);
const BATCH = 1000;

const FORMATS = (process.env.FORMATS ?? 'csv,xlsx').split(',') as ('csv' | 'xlsx')[];
const server = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
server.pathname = `/agentry_bench_${randomBytes(3).toString('hex')}`;
const kept = process.env.BENCH_DATABASE_URL;
const databaseUrl = kept || server.toString();

/** Resident memory of a process in bytes (Linux). */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

/** Each export's split timer (db/tables/export/export-timing.ts), as the API process prints it. */
type Timing = ExportTiming;

async function startApi(): Promise<{ base: string; pid: number; timings: Timing[] }> {
  const timings: Timing[] = [];
  const match = await startProcess(
    'test/bench/api-process.ts',
    { DATABASE_URL: databaseUrl, BENCH_EXPORT_TIMING: '1' },
    /port (\d+) pid (\d+)/,
    (line) => {
      if (line.startsWith('export-timing ')) timings.push(JSON.parse(line.slice('export-timing '.length)));
    },
  );
  return { base: `http://127.0.0.1:${match[1]}/public/v1`, pid: Number(match[2]), timings };
}

interface ExportRun {
  seconds: number;
  firstByteMs: number;
  bytes: number;
  lines: number;
  peakRss: number;
}

/** Counts the line feeds of a chunk (natively: the client must not compete with the API for the CPU). */
function lineFeeds(chunk: Buffer): number {
  let count = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count++;
  return count;
}

/**
 * Downloads one export over plain node:http (lighter than fetch's web streams, so the client takes little of the
 * CPU the API and PostgreSQL share), counting bytes and line breaks, while sampling the API's memory.
 */
async function runExport(base: string, pid: number, headers: Record<string, string>, format: 'csv' | 'xlsx'): Promise<ExportRun> {
  let peakRss = rss(pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rss(pid))), 10);
  const started = performance.now();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${base}/tables/customers/export/${format}`, { method: 'POST', headers }, resolve);
    req.on('error', reject);
    req.end('{}');
  });
  if (response.statusCode !== 200) throw new Error(`export ${format}: ${response.statusCode}`);
  let firstByteMs = 0;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (!bytes) firstByteMs = performance.now() - started;
    bytes += chunk.length;
    if (format === 'csv') lines += lineFeeds(chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { seconds, firstByteMs, bytes, lines, peakRss: Math.max(peakRss, rss(pid)) };
}

/** Fills the database with the customers table through the API; answers the user key and the load time. */
async function fill(orm: Awaited<ReturnType<typeof initORM>>): Promise<{ userKey: string; loadSeconds: number }> {
  const account = await bootstrapAccount(orm.em.fork(), 'Bench', 'bench@example.test');
  const headers = { authorization: `Bearer ${account.userKey}`, 'content-type': 'application/json' };
  const loader = await startApi();
  const api = async (path: string, body: unknown): Promise<any> => {
    const res = await fetch(`${loader.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  const table = await api('/tables', CUSTOMERS_TABLE);
  const fieldId = (name: string) => table.fields.find((f: { name: string }) => f.name === name).id;
  for (const name of STAGES) await api(`/tables/customers/fields/${fieldId('Stage')}/tags`, { name });
  for (const name of TAGS) await api(`/tables/customers/fields/${fieldId('Tags')}/tags`, { name });
  const loadStarted = performance.now();
  for (let from = 0; from < ROWS; from += BATCH) {
    await api('/tables/customers/rows/bulk', { rows: Array.from({ length: Math.min(BATCH, ROWS - from) }, (_, k) => customerRow(from + k)) });
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const knex = orm.em.getKnex();
  await knex.raw(`vacuum analyze "data"."rows_${table.id}"`);
  // A kept database remembers its key (only its hash is in the accounts' tables) for the next run.
  if (kept) await knex.raw('create table bench_export_key as select ?::text as user_key', [account.userKey]);
  return { userKey: account.userKey, loadSeconds };
}

/** The key of a kept database's earlier fill, if any. */
async function keptKey(orm: Awaited<ReturnType<typeof initORM>>): Promise<string | undefined> {
  if (!kept) return undefined;
  const found = await orm.em.getKnex().raw("select to_regclass('bench_export_key') is not null as present");
  if (!found.rows[0].present) return undefined;
  return (await orm.em.getKnex().raw('select user_key from bench_export_key')).rows[0].user_key;
}

async function main(): Promise<void> {
  await ensureDatabase(databaseUrl);
  const orm = await initORM({ databaseUrl, poolMax: 4 });
  await migrate(orm);
  const reused = await keptKey(orm);
  const { userKey, loadSeconds } = reused ? { userKey: reused, loadSeconds: undefined } : await fill(orm);
  const headers = { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' };

  // Each export runs in a fresh API process, so neither its idle level nor its peak carries what came before; one
  // small export first loads the code paths, then the process idles a moment before the measured run.
  const measure = async (format: 'csv' | 'xlsx'): Promise<Measured> => {
    const exporter = await startApi();
    const warmUp = { filter: { field: 'Score', operator: 'eq', value: 1 } };
    await fetch(`${exporter.base}/tables/customers/export/${format}`, { method: 'POST', headers, body: JSON.stringify(warmUp) }).then((r) =>
      r.arrayBuffer(),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = rss(exporter.pid);
    const load = loadAverage();
    const run = await runExport(exporter.base, exporter.pid, headers, format);
    // The split comes once the cursor's transaction has ended, just after the last byte.
    for (let waited = 0; exporter.timings.length < 2 && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(exporter.pid, 'SIGTERM');
    return { ...run, idle, load, timing: exporter.timings[1] };
  };

  console.log(`conditions: ${cpuModel()}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${loadAverage()} at start`);
  console.log(`PostgreSQL: ${await postgresSettings(orm)}`);
  const filled = loadSeconds === undefined ? 'reused from an earlier run' : `loaded in ${loadSeconds.toFixed(1)} s`;
  console.log(`table: ${ROWS} rows, 12 fields (string×4, number×3, boolean, date, dateOnly, select, multi select), ${filled}`);
  const runs = new Map<string, Measured[]>(FORMATS.map((f) => [f, []]));
  for (let round = 0; round < RUNS; round++) {
    for (const format of FORMATS) {
      const run = await measure(format);
      if (format === 'csv' && run.lines !== ROWS + 1) throw new Error(`CSV has ${run.lines} lines, expected ${ROWS + 1}`);
      runs.get(format)!.push(run);
      console.log(`${format.toUpperCase().padEnd(4)} run ${round + 1}: ${describe(run)}`);
      if (run.timing) console.log(`      split: ${split(run.timing)}`);
    }
  }
  if (RUNS > 1) {
    for (const [format, list] of runs) {
      const rates = list.map((r) => ROWS / r.seconds);
      console.log(
        `${format.toUpperCase().padEnd(4)} median of ${RUNS}: ${Math.round(percentile(rates, 50))} rows/s (runs: ${rates.map(Math.round).join(', ')})`,
      );
    }
  }
  console.log(`load average ${loadAverage()} at the end`);
  stopProcesses();
  await orm.close();
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (!kept) await dropDatabase(databaseUrl);
}

type Measured = ExportRun & { idle: number; load: string; timing?: Timing };

const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

function cpuModel(): string {
  const list = cpus();
  const mhz = list[0]?.speed ? ` at ${list[0].speed} MHz` : '';
  return `${list.length} × ${list[0]?.model ?? 'unknown CPU'}${mhz}`;
}

/** The server's version and the settings an export's speed depends on. */
async function postgresSettings(orm: Awaited<ReturnType<typeof initORM>>): Promise<string> {
  const names = ['shared_buffers', 'work_mem', 'synchronous_commit', 'jit', 'max_parallel_workers_per_gather', 'effective_cache_size'];
  const knex = orm.em.getKnex();
  const version = (await knex.raw('show server_version')).rows[0].server_version;
  const settings = (await knex.raw('select name, current_setting(name) as value from pg_settings where name = any(?) order by name', [names])).rows;
  return `${version}; ${settings.map((s: { name: string; value: string }) => `${s.name}=${s.value}`).join(', ')}`;
}

function describe(run: Measured): string {
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  return (
    `${ROWS} rows in ${run.seconds.toFixed(2)} s = ${Math.round(ROWS / run.seconds)} rows/s, ${mb(run.bytes)} MB, ` +
    `first byte after ${run.firstByteMs.toFixed(0)} ms, API process peak ${mb(run.peakRss - run.idle)} MB over its idle ${mb(run.idle)} MB, ` +
    `load average ${run.load} before`
  );
}

/**
 * The wall time of the export in the API process, by phase: the writer waiting for rows (cursor), our values made
 * into cells, the writer, backpressure; the fetches' own time (PostgreSQL, transfer and parsing) overlaps the rest
 * when batches are read ahead. CPU: the API process's (zlib's deflate threads included) and the PostgreSQL backend's.
 */
function split(t: Timing): string {
  const ms = (n: number) => `${Math.round(n)} ms`;
  const share = (n: number) => `${ms(n)} (${Math.round((100 * n) / t.wallMs)} %)`;
  const counted = t.ms.cursorWait + t.ms.cells + t.ms.writer + t.ms.drain;
  return (
    `wall ${ms(t.wallMs)}: cursor wait ${share(t.ms.cursorWait)} [fetch round trips ${ms(t.ms.fetch)}, read form ${ms(t.ms.views)}], ` +
    `cells ${share(t.ms.cells)}, writer ${share(t.ms.writer)}, backpressure ${share(t.ms.drain)}, rest ${share(t.wallMs - counted)}; ` +
    `CPU: API ${ms(t.cpuUserMs + t.cpuSystemMs)} (system ${ms(t.cpuSystemMs)}), PostgreSQL backend ${t.backendCpuMs === undefined ? 'unknown' : ms(t.backendCpuMs)}`
  );
}

await main();
