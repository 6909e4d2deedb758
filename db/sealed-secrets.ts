/**
 * Every stored secret sealed with SETTINGS_ENCRYPTION_KEY (lib/secret-box.ts), found from the entities themselves:
 * a property named `…Sealed`. `resealSecrets` moves them all from one key to another in one transaction, after
 * opening every one of them with the old key: a value the old key cannot open stops the rotation before anything is
 * written, naming the row (a rotation must never leave secrets sealed under two keys).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../lib/errors.js';
import type { SecretBox } from '../lib/secret-box.js';

export interface SealedColumn {
  table: string;
  column: string;
  primaryKey: string;
}

/** The columns holding sealed secrets, from the ORM's metadata. */
export function sealedColumns(em: EntityManager): SealedColumn[] {
  const columns: SealedColumn[] = [];
  for (const meta of Object.values(em.getMetadata().getAll())) {
    if (!meta.tableName || meta.embeddable || meta.virtual) continue;
    for (const prop of Object.values(meta.properties)) {
      if (!prop.name.endsWith('Sealed')) continue;
      columns.push({ table: meta.tableName, column: prop.fieldNames[0]!, primaryKey: meta.getPrimaryProps()[0]!.fieldNames[0]! });
    }
  }
  return columns.sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));
}

export interface ResealedColumn extends SealedColumn {
  count: number;
}

/** Re-seals every sealed secret from `from` to `to`, all or nothing; answers how many each column held. */
export async function resealSecrets(em: EntityManager, from: SecretBox, to: SecretBox): Promise<ResealedColumn[]> {
  const columns = sealedColumns(em);
  return em.getKnex().transaction(async (trx) => {
    const done: ResealedColumn[] = [];
    for (const c of columns) {
      const rows: { id: string | number; sealed: string }[] = await trx(c.table)
        .select({ id: c.primaryKey, sealed: c.column })
        .whereNotNull(c.column)
        .orderBy(c.primaryKey)
        .forUpdate();
      const resealed = rows.map(({ id, sealed }) => {
        const secret = from.open(sealed);
        if (secret === null) {
          throw new ConflictError(`${c.table} ${String(id)}: ${c.column} was not sealed with the current key; nothing was changed`);
        }
        return { id, sealed: to.seal(secret) };
      });
      for (const { id, sealed } of resealed)
        await trx(c.table)
          .where(c.primaryKey, id)
          .update({ [c.column]: sealed });
      done.push({ ...c, count: rows.length });
    }
    return done;
  });
}
