/**
 * `fields/preview-formula`: evaluates a formula on existing rows before the field exists, with exactly the
 * validation of a field create (same issues, same paths), so a user can try an expression and see its values.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../../lib/errors.js';
import type { DataTable } from '../data-table.entity.js';
import { fieldModels, query, sqlOf } from '../table-lookups.js';
import { rowTableName } from '../ddl.js';
import { validateFieldMetadata } from '../field-types/index.js';
import { fromDbValue } from '../field-types/values.js';
import { qualified } from '../query/fragment.js';
import type { FieldModel } from '../types.js';
import { checkFormula } from './formula-fields.service.js';
import { ROW_ALIAS } from './formula-source.js';
import { dataTable } from './formula-sql.js';

export interface PreviewInput {
  metadata: Record<string, unknown>;
  /** Rows to evaluate on; the first `limit` rows (creation order) when absent. */
  rowIds?: string[];
  limit?: number;
}

export async function previewFormula(em: EntityManager, table: DataTable, input: PreviewInput) {
  const { metadata, issues } = validateFieldMetadata('formula', input.metadata);
  if (issues.length) throw new BadRequestError(`Invalid metadata: ${issues[0]!.path} ${issues[0]!.message}`, issues);
  const formula = await checkFormula(em, table, await fieldModels(em, table), metadata);
  const id = qualified(ROW_ALIAS, 'id');
  const only = input.rowIds ? ` where ?? = any(?::bpchar[])` : '';
  const rows = await query<{ id: string; value: unknown }>(
    sqlOf(em),
    `select ?? as id, ${formula.sql} as value from ?? as ??${only} order by ?? limit ?`,
    [
      id,
      ...formula.bindings,
      dataTable(rowTableName(table.id)),
      ROW_ALIAS,
      ...(input.rowIds ? [id, input.rowIds.map((r) => r.toLowerCase())] : []),
      id,
      input.rowIds?.length ?? input.limit ?? 20,
    ],
  );
  const shape = { type: 'formula', metadata, formulaType: formula.type } as FieldModel;
  return { type: formula.type, agentry: rows.map((row) => ({ id: row.id, value: fromDbValue(shape, row.value) })) };
}
