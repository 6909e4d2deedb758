/** Relation fields seen from both ends: linked rows of a record, source records of a target, link and unlink. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { DataTable } from './data-table.entity.js';
import { loadFields, query, sqlOf } from './table-lookups.js';
import { qualified, rowTableName } from './ddl.js';
import { OBJECT_ID_PATTERN } from './object-id.js';
import { writeRowEvents } from './row-events.js';
import { resolveField } from './row-values.js';
import { getRow, readRows, type TableContext } from './rows.service.js';
import type { FieldModel } from './types.js';

function relationField(ctx: TableContext, ref: string): FieldModel {
  const field = resolveField(ctx.fields, ref);
  if (!field || field.type !== 'relation') throw new NotFoundError(`No relation field "${ref}" in "${ctx.table.name}"`);
  return field;
}

async function targetContext(em: EntityManager, ctx: TableContext, field: FieldModel): Promise<TableContext> {
  const table = await em.findOneOrFail(DataTable, { id: Number(field.metadata.relatedTableId), account: ctx.table.account });
  return { table, fields: (await loadFields(em, table)).models };
}

async function rowsByIds(em: EntityManager, ctx: TableContext, ids: string[]) {
  return ids.length ? readRows(em, ctx.table, ctx.fields, ids) : [];
}

/** Rows of the related table that record `id` links to through the relation. */
export async function linkedRows(em: EntityManager, ctx: TableContext, id: string, relation: string) {
  const field = relationField(ctx, relation);
  const row = await getRow(em, ctx, id);
  const value = row.data[field.name];
  const ids = Array.isArray(value) ? (value as string[]) : value ? [value as string] : [];
  return rowsByIds(em, await targetContext(em, ctx, field), ids);
}

/** Records of this table that link to the target record through the relation. */
export async function sourceRows(em: EntityManager, ctx: TableContext, relation: string, targetId: string) {
  const field = relationField(ctx, relation);
  if (!OBJECT_ID_PATTERN.test(targetId)) return [];
  const trx = sqlOf(em);
  const sql = field.linkTable
    ? `select source_id as id from ${qualified(field.linkTable)} where target_id = ?`
    : `select id from ${qualified(rowTableName(ctx.table.id))} where ?? = ?`;
  const ids = await query<{ id: string }>(trx, sql, field.linkTable ? [targetId] : [field.column, targetId]);
  return rowsByIds(
    em,
    ctx,
    ids.map((r) => r.id),
  );
}

/** Adds (link) or removes (unlink) targets of a relation of one record. */
export async function changeLinks(em: EntityManager, ctx: TableContext, id: string, relation: string, targetIds: string[], link: boolean) {
  const field = relationField(ctx, relation);
  return em.transactional(async (tx) => {
    const trx = sqlOf(tx);
    await getRow(tx, ctx, id);
    const target = await targetContext(tx, ctx, field);
    if (link) {
      const found = await query<{ id: string }>(trx, `select id from ${qualified(rowTableName(target.table.id))} where id = any(?)`, [targetIds]);
      const missing = targetIds.filter((t) => !found.some((f) => f.id === t));
      if (missing.length) {
        throw new BadRequestError(`No record ${missing.slice(0, 5).join(', ')} in "${target.table.name}"`, [
          { code: 'not_found', path: 'targetIds', message: `not in "${target.table.name}"` },
        ]);
      }
    }
    const rows = qualified(rowTableName(ctx.table.id));
    if (field.linkTable && link) {
      await query(trx, `insert into ${qualified(field.linkTable)} (source_id, target_id) select ?, unnest(?::char(24)[]) on conflict do nothing`, [
        id,
        targetIds,
      ]);
    } else if (field.linkTable) {
      await query(trx, `delete from ${qualified(field.linkTable)} where source_id = ? and target_id = any(?)`, [id, targetIds]);
    } else if (link) {
      if (targetIds.length > 1)
        throw new BadRequestError(`"${field.name}" links one record; send one target id`, [
          { code: 'invalid', path: 'targetIds', message: 'at most one id for a single relation' },
        ]);
      await query(trx, `update ${rows} set ?? = ? where id = ?`, [field.column, targetIds[0], id]);
    } else {
      await query(trx, `update ${rows} set ?? = null where id = ? and ?? = any(?)`, [field.column, id, field.column, targetIds]);
    }
    await query(trx, `update ${rows} set updated_at = now() where id = ?`, [id]);
    const row = await getRow(tx, ctx, id);
    await writeRowEvents(trx, ctx.table, 'UPDATED', [{ row, changedFields: [field.name] }], ctx.chain);
    return row;
  });
}
