/**
 * What both export formats read through: a read-only transaction holding a cursor over the export's query, read
 * batch by batch while the client takes the previous ones, and the wait on a client that is slow to read.
 */
import type { Writable } from 'node:stream';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { query as runSql } from '../table-lookups.js';
import type { RowQuery } from '../rows-query.service.js';
import type { TableContext } from '../rows.service.js';
import type { FieldModel } from '../types.js';
import type { PhaseTimer } from './export-timing.js';
import type { SheetWriters } from './sheet-format.js';

/** Starts an export of one format: the rows of `query`, as `fields` in order, written into `out`; a bad query throws before any byte. */
export type StartExport = (
  em: EntityManager,
  ctx: TableContext,
  query: RowQuery,
  fields: FieldModel[],
  out: Writable,
  writers: SheetWriters,
) => Promise<void>;

/** A client that takes nothing for this long has gone: its export ends and frees its database connection. */
const STALL_MS = 120_000;

/** Resolves once `out` can take more or is gone; destroys it when the client takes nothing for STALL_MS. */
export function drained(out: Writable): Promise<void> {
  if (!out.writableNeedDrain || out.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      out.off('drain', done).off('close', done);
      resolve();
    };
    const timer = setTimeout(() => out.destroy(new Error('the client stopped reading the export')), STALL_MS);
    out.once('drain', done).once('close', done);
  });
}

export interface ExportCursor<T> {
  /** The next batch (fewer than `batchRows` rows at the end). */
  next(): Promise<T>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Declares the cursor. `next` answers the next batch as `read` makes it of the fetched rows (on the transaction's
 * connection, so it may query more); up to `readAhead` more are fetched meanwhile, one after the other.
 */
export async function openCursor<T>(
  em: EntityManager,
  sql: string,
  bindings: unknown[],
  { batchRows, readAhead, timer }: { batchRows: number; readAhead: number; timer?: PhaseTimer },
  read: (trx: Knex, rows: Record<string, unknown>[]) => Promise<T> | T,
): Promise<ExportCursor<T>> {
  const trx = await em.getKnex().transaction();
  try {
    await trx.raw('set transaction read only');
    // An export's query costs enough to be JIT-compiled, and compiling the CSV cell expressions (csv-columns.ts)
    // takes longer than evaluating them: hundreds of milliseconds before the first row.
    await trx.raw('set local jit = off');
    await runSql(trx, `declare export_rows no scroll cursor for ${sql}`, bindings);
    if (timer) timer.backend((await runSql<{ pid: number }>(trx, 'select pg_backend_pid() as pid'))[0]!.pid);
  } catch (error) {
    await trx.rollback();
    throw error;
  }
  let ended = false;
  let tail: Promise<unknown> = Promise.resolve();
  const ahead: Promise<T>[] = [];
  const fetchBatch = (): Promise<T> => {
    const batch = tail.then(async () => {
      const fetched = timer && performance.now();
      const rows = ended ? [] : await runSql(trx as Knex, `fetch ${batchRows} from export_rows`);
      if (rows.length < batchRows) ended = true;
      if (!timer) return read(trx, rows);
      const read0 = performance.now();
      timer.add('fetch', read0 - (fetched as number));
      const made = await read(trx, rows);
      timer.add('views', performance.now() - read0);
      return made;
    });
    tail = batch.catch(() => undefined);
    return batch;
  };
  return {
    next: () => {
      while (ahead.length <= readAhead) ahead.push(fetchBatch());
      return ahead.shift()!;
    },
    close: () => {
      ended = true;
      return tail.then(async () => void (await trx.commit()));
    },
    abort: () => {
      ended = true;
      return tail.then(async () => void (await trx.rollback()));
    },
  };
}

export interface BatchWriter<T> {
  /** Writes a batch into the output; answers its number of rows. */
  write(batch: T): Promise<number> | number;
  /** Ends the document and the output. */
  finish(): Promise<void> | void;
}

/**
 * Reads the first batch (a failure there, such as a bad query, is the caller's to answer before any byte), then
 * writes batch after batch in the background, waiting for `out` to drain between them. A failure later destroys
 * `out` (the client sees a truncated transfer, never a file that looks complete) and rolls the cursor back.
 */
export async function pumpExport<T>(
  cursor: ExportCursor<T>,
  out: Writable,
  batchRows: number,
  writer: BatchWriter<T>,
  timer?: PhaseTimer,
): Promise<void> {
  let first: T;
  try {
    timer?.mark();
    first = await cursor.next();
    timer?.lap('cursorWait');
  } catch (error) {
    await cursor.abort();
    throw error;
  }
  const pump = async (): Promise<void> => {
    for (let batch = first; ; batch = await cursor.next()) {
      timer?.lap('cursorWait');
      const rows = await writer.write(batch);
      if (timer) {
        timer.rows += rows;
        timer.batches++;
        timer.mark();
      }
      await drained(out);
      timer?.lap('drain');
      if (out.destroyed) return;
      if (rows < batchRows) break;
    }
    timer?.mark();
    await writer.finish();
    timer?.lap('writer');
  };
  pump()
    .then(() => cursor.close())
    .then(() => timer?.end())
    .catch(async (error: Error) => {
      out.destroy(error);
      await cursor.abort().catch(() => undefined);
    });
}
