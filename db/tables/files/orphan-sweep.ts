/**
 * No bytes without a file row. Bytes are written before their row (an upload streams first, then its rows are
 * inserted in one transaction) and removed after it (record, file and Table deletions remove them once committed),
 * so a crash in between, or an upload cut short, can leave bytes no row names. The sweep finds them: every stored
 * object that no `record_files` row names and that has not been written to for the grace period is removed. The
 * grace period covers an upload in progress (its bytes are not named yet) and the moment between its last byte
 * and its commit; a slow upload keeps writing, so only one that stalled that long can lose its bytes (and fails).
 *
 * FILES_DIR belongs to one database: the sweep removes whatever this database does not name.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FileStore, StoredObject } from './file-store.js';

/** Keys checked against the database per query. */
const BATCH = 500;

export interface SweepResult {
  /** Objects looked at. */
  seen: number;
  /** Keys of the objects removed. */
  removed: string[];
}

/** Removes the stored objects no file row names that were last written more than `graceMs` before `now`. */
export async function sweepOrphanFiles(em: EntityManager, store: FileStore, graceMs: number, now = Date.now()): Promise<SweepResult> {
  const result: SweepResult = { seen: 0, removed: [] };
  const knex = em.getKnex();
  const flush = async (batch: StoredObject[]): Promise<void> => {
    const named = await knex.raw('select storage_key from record_files where storage_key = any(?)', [batch.map((o) => o.key)]);
    const keep = new Set((named.rows as { storage_key: string }[]).map((r) => r.storage_key));
    const orphans = batch.filter((o) => !keep.has(o.key)).map((o) => o.key);
    await store.remove(orphans);
    result.removed.push(...orphans);
  };
  let batch: StoredObject[] = [];
  for await (const object of store.list()) {
    result.seen++;
    if (now - object.modifiedAt.getTime() < graceMs) continue;
    batch.push(object);
    if (batch.length >= BATCH) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length) await flush(batch);
  return result;
}

/**
 * Sweeps at start and then every `intervalMs` until stopped; failures are reported and the next sweep runs as
 * planned. The timer does not keep the process alive.
 */
export function startOrphanSweeps(
  em: EntityManager,
  store: FileStore,
  {
    graceMs,
    intervalMs,
    onSwept,
    onError,
  }: { graceMs: number; intervalMs: number; onSwept(result: SweepResult): void; onError(error: unknown): void },
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    try {
      onSwept(await sweepOrphanFiles(em.fork(), store, graceMs));
    } catch (error) {
      onError(error);
    }
    if (!stopped) timer = setTimeout(() => void run(), intervalMs).unref();
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
