/**
 * Serialised writes of one stored document (an agent's settings, a graph, a table's metadata): a PostgreSQL
 * transaction-level advisory lock on the document's key, held until the transaction ends. Writers of the same
 * document take turns, each reading what the one before it committed; writers of different documents never wait on
 * each other. The key is scoped to the account, so no account can make another's writes wait.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Takes the lock of `key` for the rest of `tx`'s transaction (waits while another transaction holds it). */
export async function lockDocument(tx: EntityManager, accountId: number, key: string): Promise<void> {
  if (!tx.isInTransaction()) throw new Error('lockDocument needs a transaction: the lock lasts until it ends');
  await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${accountId}:${key}`]);
}
