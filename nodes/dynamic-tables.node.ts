/**
 * DYNAMIC_TABLES (automations only): creates, updates, deletes, searches or changes the record type of records of
 * a Table or Object through the same data plane as the API. Bad input (unknown field, invalid value, missing
 * record) fails the node at once; SEARCH answers a top-level array of rows. Values made of one variable keep its
 * JSON type and are converted to the target field's type (`support/coerce-row-values.ts`). Every write happens once
 * per node execution (its outcome is recorded with it), so a retry neither repeats it nor writes a second row event.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DataTable } from '../db/tables/data-table.entity.js';
import { RecordType } from '../db/tables/record-type.entity.js';
import { fieldModels, findTableById } from '../db/tables/table-lookups.js';
import { listRows } from '../db/tables/rows-query.service.js';
import { createRows, deleteRow, updateRow, type TableContext } from '../db/tables/rows.service.js';
import { createRowOnce } from '../db/tables/row-create-once.js';
import type { FieldModel } from '../db/tables/types.js';
import type { Issue } from '../lib/errors.js';
import { invalid, missing, notFound, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, type NodeExecutor, type NodeModule } from './node-module.js';
import { coerceRowValues, recordId } from './support/coerce-row-values.js';
import { NodeError } from '../lib/errors.js';

export const TABLE_ACTIONS = ['CREATE', 'UPDATE', 'DELETE', 'SEARCH', 'CHANGE_RECORD_TYPE'];

/** `tableId` (a Table or Object of the account) and `recordTypeId` (a record type of that table). */
const checkTable: NodeCheck = async (node, { em, accountId }) => {
  const { tableId, recordTypeId, action } = node.data;
  const issues: Issue[] = [];
  const table = await em.findOne(DataTable, { id: tableId as number, account: accountId });
  if (!table) issues.push(notFound('tableId', `no Table or Object ${String(tableId)} in this account`));
  if (recordTypeId === undefined || recordTypeId === null) {
    if (action === 'CHANGE_RECORD_TYPE')
      issues.push(missing('recordTypeId', 'is required for CHANGE_RECORD_TYPE (the record type to move the record to)'));
    return issues;
  }
  const recordType = await em.findOne(RecordType, { id: recordTypeId as number, table: { account: accountId } });
  if (!recordType) issues.push(notFound('recordTypeId', `no record type ${String(recordTypeId)} in this account`));
  else if (table && recordType.table.id !== table.id) {
    issues.push(invalid('recordTypeId', `record type ${String(recordTypeId)} does not belong to "${table.displayName}" (table ${table.id})`));
  }
  return issues;
};

/**
 * A write joins the transaction that records the node's effect once (`onceWrites`: it is only writes of that
 * transaction): it fails as a whole anyway. It reads its table there, locked as a row write locks it, so the write
 * takes no lock of its own.
 */
const LOCKED_JOIN = { join: true, locked: true };

const executeDynamicTables: NodeExecutor = async ({ accountId, data, chain, executionKey }, { orm, onceWrites, files }) => {
  const rowValues = (fields: FieldModel[]) => coerceRowValues(fields, (data.rowData ?? {}) as Record<string, unknown>);
  /** The table, its fields and the node's row values; `forShare` in the write's transaction. */
  const context = async (em: EntityManager, forShare: boolean) => {
    const table = await findTableById(em, accountId, Number(data.tableId), { forShare });
    if (!table) throw new NodeError(`Table ${String(data.tableId)} no longer exists`, 'InvalidNode');
    const fields = await fieldModels(em, table);
    const ctx: TableContext = { table, fields, chain };
    return { ctx, values: rowValues(fields) };
  };
  const rowId = () => recordId(data.rowId);
  switch (data.action) {
    case 'CREATE': {
      // Most creates take one statement (db/tables/row-create-once.ts); the rest, and any doubt, the general path.
      const once =
        data.recordTypeId == null &&
        (await createRowOnce(orm.em.fork(), { accountId, tableId: Number(data.tableId), values: rowValues, chain, executionKey }));
      if (once) return { output: once };
      return {
        output: await onceWrites(async (tx) => {
          const { ctx, values } = await context(tx, true);
          return (await createRows(tx, ctx, [{ values, recordTypeId: data.recordTypeId as number | undefined }], LOCKED_JOIN))[0];
        }),
      };
    }
    case 'UPDATE':
      return {
        output: await onceWrites(async (tx) => {
          const { ctx, values } = await context(tx, true);
          return updateRow(tx, ctx, rowId(), { values }, LOCKED_JOIN);
        }),
      };
    case 'CHANGE_RECORD_TYPE':
      return {
        output: await onceWrites(async (tx) =>
          updateRow(tx, (await context(tx, true)).ctx, rowId(), { values: {}, recordTypeId: data.recordTypeId as number }, LOCKED_JOIN),
        ),
      };
    case 'DELETE': {
      // The file keys are part of what is recorded, so a retry removes the bytes too (removing is idempotent).
      const { fileKeys } = await onceWrites(async (tx) => ({ fileKeys: await deleteRow(tx, (await context(tx, true)).ctx, rowId(), LOCKED_JOIN) }));
      await files.remove(fileKeys);
      return { output: { deleted: rowId() } };
    }
    case 'SEARCH': {
      const em = orm.em.fork();
      const { ctx } = await context(em, false);
      const search = data.search === undefined || data.search === null ? undefined : String(data.search);
      const page = await listRows(em, ctx, { filter: data.filter, search, limit: 500 });
      return { output: page.agentry };
    }
    default:
      throw new NodeError(`Unknown DYNAMIC_TABLES action ${String(data.action)}`, 'InvalidNode');
  }
};

export const dynamicTablesNode: NodeModule = {
  type: 'DYNAMIC_TABLES',
  scopes: ['automation'],
  summary: 'Creates, updates, deletes, searches or changes the record type of records in a Table or Object',
  data: {
    required: ['action', 'tableId'],
    properties: {
      action: { enum: TABLE_ACTIONS },
      tableId: { type: 'integer', description: 'A Table or Object of the account' },
      recordTypeId: { type: ['integer', 'null'], description: 'Record type of the table (required for CHANGE_RECORD_TYPE)' },
      rowId: { type: ['string', 'null'], description: 'The record (UPDATE, DELETE, CHANGE_RECORD_TYPE); interpolable' },
      search: { type: ['string', 'null'], description: 'Full-text search (SEARCH); interpolable' },
      filter: { type: ['object', 'null'], description: 'Query filter of the rows (SEARCH), as in POST .../rows/list' },
      rowData: {
        type: ['object', 'null'],
        description: 'Field names to values (CREATE, UPDATE); a value made of one {variable} keeps its JSON type and is converted to the field type',
      },
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['rowId', 'search', 'rowData'],
  checks: [checkTable],
  execute: executeDynamicTables,
};
