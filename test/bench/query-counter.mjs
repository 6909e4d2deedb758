/**
 * Counts the statements a benchmark's child process sends to PostgreSQL (the per-run cost table of
 * test/bench/automation.bench.ts). Preloaded with `--import` by `startProcess` when BENCH_QUERY_COUNTS names a folder
 * (plain JavaScript, as worker threads preload it too, before any TypeScript loader): every `pg` client query
 * (MikroORM and knex go through it, as does the dispatcher's LISTEN connection) is one round trip, counted by its
 * statement text (whitespace collapsed). On SIGWINCH the process writes its counts so far to `<folder>/<pid>.json`.
 * Portable where `pg_stat_statements` is not loaded.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import pg from 'pg';

const folder = process.env.BENCH_QUERY_COUNTS;
if (folder && isMainThread) {
  const counts = new Map();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first?.text ?? '?');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 300);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return query.apply(this, args);
  };
  process.on('SIGWINCH', () => {
    // Whole or not at all: the benchmark reads the file as soon as it is there.
    const file = join(folder, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify({ at: Date.now(), counts: Object.fromEntries(counts) }));
    renameSync(`${file}.tmp`, file);
  });
}
