/**
 * Stored `Idempotency-Key`s (lib/idempotency.ts). A key is claimed by an INSERT in the transaction that records the
 * call's outbox event, so the key and the event commit or vanish together. A concurrent call with the same key blocks
 * on the primary key until the first transaction ends, then reads its answer: concurrent requests never start two
 * runs and never see a 409 "in progress". A key older than the TTL that the sweep has not removed yet is taken over.
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { ConflictError } from '../../lib/errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_TTL_MS } from '../../lib/idempotency.js';
import { query, sqlOf } from '../tables/table-lookups.js';

export interface IdempotentCall {
  /** `webhook:<id>`, `subscription:<id>`, `retry:<log id>` or `rows:<table id>`. */
  scope: string;
  key: string;
  /** Digest of the body (lib/idempotency.ts `bodyDigest`). */
  requestHash: string;
}

/** An answer to a call: what `work` recorded, or, `replayed`, what the first call with the key recorded. */
export interface IdempotentAnswer<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/**
 * Runs `work` (which records the outbox event, or the rows, in `tx`) once per key: answers its result, or the stored
 * answer of the first call with this key and body. Call inside a transaction.
 */
export async function oncePerKey<T extends object>(
  tx: EntityManager,
  call: IdempotentCall,
  status: number,
  work: () => Promise<T>,
): Promise<IdempotentAnswer<T>> {
  const sql = sqlOf(tx);
  const [claimed] = await query(
    sql,
    `insert into idempotency_keys (scope, key, request_hash, created_at) values (?, ?, ?, now())
     on conflict (scope, key) do update set request_hash = excluded.request_hash, created_at = excluded.created_at,
       event_id = null, response_status = null, response_body = null
     where idempotency_keys.created_at < now() - make_interval(secs => ?)
     returning key`,
    [call.scope, call.key, call.requestHash, IDEMPOTENCY_KEY_TTL_MS / 1000],
  );
  if (!claimed) {
    const [first] = await query<{ request_hash: string; response_status: number; response_body: T }>(
      sql,
      'select request_hash, response_status, response_body from idempotency_keys where scope = ? and key = ?',
      [call.scope, call.key],
    );
    if (first!.request_hash !== call.requestHash) {
      throw new ConflictError(`${IDEMPOTENCY_HEADER} "${call.key}" was already used with another body; use a new key for a new request`, {
        issues: [{ code: 'conflict', path: `headers.${IDEMPOTENCY_HEADER}`, message: 'was already used with another body' }],
      });
    }
    return { status: first!.response_status, body: first!.response_body, replayed: true };
  }
  const body = await work();
  await query(sql, 'update idempotency_keys set event_id = ?, response_status = ?, response_body = ?::jsonb where scope = ? and key = ?', [
    'eventId' in body && typeof body.eventId === 'string' ? body.eventId : null,
    status,
    JSON.stringify(body),
    call.scope,
    call.key,
  ]);
  return { status, body, replayed: false };
}

/** Deletes keys past the TTL; answers how many. */
export async function pruneIdempotencyKeys(knex: Knex, now: Date = new Date()): Promise<number> {
  const result = await knex.raw('delete from idempotency_keys where created_at < ?', [new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)]);
  return result.rowCount ?? 0;
}
