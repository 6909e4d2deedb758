/**
 * Reading rows with their formula values: the row source of a table is its row table plus one computed column per
 * formula field (`f_<fieldId>`, the name a stored column of that field would have), so the filter, sort, search,
 * count and aggregation compilers read formula columns exactly like stored ones:
 *
 *   (select "_row".*, (<formula 12>) as "f_12" from "data"."rows_5" as "_row") as "r"
 *
 * PostgreSQL inlines this subquery into the statement around it; formula columns the statement does not use are
 * never computed, and expensive ones in the select list are computed after sort and limit, for the page only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DataTable } from '../data-table.entity.js';
import { fieldModels, findTablesById, query, sqlOf } from '../table-lookups.js';
import { fieldColumnName, rowTableName } from '../ddl.js';
import { fragment, type SqlFragment } from '../query/fragment.js';
import type { FieldModel } from '../types.js';
import { compileFormula, type CompileResult } from './formula-compiler.js';
import type { BackRelation, FormulaScope, RelatedTable } from './formula-scope.js';
import { dataTable, nullOf } from './formula-sql.js';

/** Alias of the row table inside a row source; compiled formulas refer to it. */
export const ROW_ALIAS = '_row';

export interface RowSource {
  /** The table's fields; formula fields carry their computed column and `formulaType`. */
  fields: FieldModel[];
  /** The FROM item reading the rows, with formula columns, under `alias`. */
  from(alias: string): SqlFragment;
  /** Whether the source computes formula columns (else it is the plain row table). */
  computed: boolean;
}

/** Loads what the table's formulas may read: the targets of its relations and the relations pointing at it. */
export async function formulaScope(
  em: EntityManager,
  table: DataTable,
  fields: FieldModel[],
  load: (em: EntityManager, table: DataTable) => Promise<FieldModel[]> = fieldModels,
): Promise<FormulaScope> {
  const accountId = table.account.id;
  const back = await query<{ id: number; table_id: number }>(
    sqlOf(em),
    `select f.id, f.table_id from data_fields f join data_tables t on t.id = f.table_id
      where t.account_id = ? and f.type = 'relation' and f.metadata->>'relatedTableId' = ?`,
    [accountId, String(table.id)],
  );
  const targetIds = fields.filter((f) => f.type === 'relation').map((f) => Number(f.metadata.relatedTableId));
  const ids = [...new Set([...targetIds, ...back.map((b) => b.table_id)])].filter((id) => id !== table.id);
  const tables = new Map<number, RelatedTable>([[table.id, { id: table.id, name: table.name, fields }]]);
  for (const other of await findTablesById(em, accountId, ids)) {
    tables.set(other.id, { id: other.id, name: other.name, fields: await load(em, other) });
  }
  const backRelations: BackRelation[] = [];
  for (const b of back) {
    const source = tables.get(b.table_id);
    const field = source?.fields.find((f) => f.id === b.id);
    if (source && field) backRelations.push({ field, table: source });
  }
  const related = new Map([...tables].filter(([id]) => targetIds.includes(id)));
  return { tableId: table.id, tableName: table.name, fields, related, backRelations };
}

/** Whether any formula reads other tables (worth loading the scope for). */
function readsRelations(formulas: FieldModel[]): boolean {
  return formulas.some((f) => {
    const text = JSON.stringify(f.metadata.expression);
    return text.includes('"aggregate"') || /\]\s*\.\s*\[/.test(text);
  });
}

/** Compiles every formula field of the table against its current fields. */
export async function compileTableFormulas(em: EntityManager, table: DataTable, fields: FieldModel[]): Promise<Map<number, CompileResult>> {
  const formulas = fields.filter((f) => f.type === 'formula');
  const results = new Map<number, CompileResult>();
  if (!formulas.length) return results;
  const scope = readsRelations(formulas)
    ? await formulaScope(em, table, fields)
    : { tableId: table.id, tableName: table.name, fields, related: new Map(), backRelations: [] };
  for (const field of formulas) results.set(field.id, compileFormula(field.metadata, scope, ROW_ALIAS));
  return results;
}

/** The table's rows with their formula values (see the top of this file). */
export async function rowSource(em: EntityManager, table: DataTable, fields: FieldModel[]): Promise<RowSource> {
  const rows = dataTable(rowTableName(table.id));
  const compiled = await compileTableFormulas(em, table, fields);
  if (!compiled.size) return { fields, from: (alias) => fragment('?? as ??', rows, alias), computed: false };
  const columns: SqlFragment[] = [];
  const readable = fields.map((field) => {
    const result = compiled.get(field.id);
    if (!result) return field;
    // A formula that no longer compiles (a change the checks did not foresee) reads as null instead of failing reads.
    const value = result.ok ? result.formula : nullOf('string');
    const column = fieldColumnName(field.id);
    columns.push(fragment(`${value.sql} as ??`, ...value.bindings, column));
    return { ...field, column, formulaType: value.type, readOnly: true };
  });
  const select = columns.map((c) => c.sql).join(', ');
  const bindings = columns.flatMap((c) => c.bindings);
  return {
    fields: readable,
    computed: true,
    from: (alias) => fragment(`(select ??.*, ${select} from ?? as ??) as ??`, ROW_ALIAS, ...bindings, rows, ROW_ALIAS, alias),
  };
}
