/**
 * Exports show what a user sees, not ids: a relation by its display column, a user by the entity relation's
 * display field, a file by its name. One query per such field and page of rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { fieldModels, findTableById, query, sqlOf } from '../table-lookups.js';
import { qualified, rowTableName } from '../ddl.js';
import { fromDbValue } from '../field-types/values.js';
import type { DataTable } from '../data-table.entity.js';
import type { RowView } from '../row-values.js';
import type { FieldModel } from '../types.js';
import type { PageLabels } from './export-cells.js';

/** Labels of the given referenced ids (as strings); ids without a label are left out. */
export type LabelLoader = (ids: string[]) => Promise<Map<string, string>>;

const labelText = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : value === null || value === undefined ? '' : String(value));

async function relationLoader(em: EntityManager, table: DataTable, field: FieldModel): Promise<LabelLoader | undefined> {
  const related = await findTableById(em, table.account.id, Number(field.metadata.relatedTableId));
  if (!related) return undefined;
  const display = (await fieldModels(em, related)).find((f) => f.id === Number(field.metadata.displayColumn));
  // A display column without a column of its own (a formula, a multi relation) falls back to the ids.
  if (!display?.column) return undefined;
  const sql = `select id, "${display.column}" as label from ${qualified(rowTableName(related.id))} where id = any(?)`;
  return async (ids) => {
    const rows = await query<{ id: string; label: unknown }>(sqlOf(em), sql, [ids]);
    return new Map(rows.map((r) => [r.id.trim(), labelText(fromDbValue(display, r.label))]));
  };
}

/** A loader per field whose values are references, keyed by field id. */
export async function labelLoaders(em: EntityManager, table: DataTable, fields: FieldModel[]): Promise<Map<number, LabelLoader>> {
  const loaders = new Map<number, LabelLoader>();
  const rowsOf = async <T extends { id: unknown; label: string }>(sql: string, bindings: unknown[]) =>
    new Map((await query<T>(sqlOf(em), sql, bindings)).map((r) => [String(r.id), r.label]));
  for (const field of fields) {
    if (field.type === 'relation') {
      const loader = await relationLoader(em, table, field);
      if (loader) loaders.set(field.id, loader);
    } else if (field.type === 'entityRelation' && field.metadata.entityModel !== 'Conversation') {
      // Users carry an email only, so every displayField of a User relation shows the email.
      loaders.set(field.id, (ids) =>
        rowsOf('select id, email as label from users where account_id = ? and id = any(?::int[])', [table.account.id, ids]),
      );
    } else if (field.type === 'file') {
      loaders.set(field.id, (ids) =>
        rowsOf('select id, name as label from record_files where table_id = ? and id = any(?::int[])', [
          table.id,
          ids.filter((id) => /^\d+$/.test(id)),
        ]),
      );
    }
  }
  return loaders;
}

/** Labels of the ids the page's rows reference, per field (for export-cells.ts). */
export async function pageLabels(rows: RowView[], fields: FieldModel[], loaders: Map<number, LabelLoader>): Promise<PageLabels> {
  const labels: PageLabels = new Map();
  for (const field of fields) {
    const load = loaders.get(field.id);
    if (!load) continue;
    const ids = new Set<string>();
    for (const row of rows) {
      const value = row.data[field.name];
      for (const id of Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]) ids.add(String(id));
    }
    if (ids.size) labels.set(field.id, await load([...ids]));
  }
  return labels;
}
