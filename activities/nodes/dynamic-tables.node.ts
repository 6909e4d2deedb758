import { ApplicationFailure } from '@temporalio/activity';
import { DataTable } from '../../db/entities/index.js';
import { fieldModels } from '../../db/tables/catalog.js';
import { listRows } from '../../db/tables/rows-query.service.js';
import { createRows, deleteRow, updateRow, type TableContext } from '../../db/tables/rows.service.js';
import { AppError } from '../../lib/errors.js';
import type { NodeExecutor } from './types.js';

/**
 * DYNAMIC_TABLES: create, update, delete, search or change the record type of records through the same data plane
 * as the API. Bad input (unknown field, invalid value, missing record) fails the node at once; SEARCH answers a
 * top-level array of rows.
 */
export const executeDynamicTables: NodeExecutor = async ({ accountId, data, chain }, { orm }) => {
  const em = orm.em.fork();
  const table = await em.findOne(DataTable, { id: Number(data.tableId), account: accountId });
  if (!table) throw ApplicationFailure.nonRetryable(`Table ${data.tableId} no longer exists`, 'InvalidNode');
  const ctx: TableContext = { table, fields: await fieldModels(em, table), chain };
  const values = (data.rowData ?? {}) as Record<string, unknown>;
  const rowId = String(data.rowId ?? '');
  try {
    switch (data.action) {
      case 'CREATE':
        return { output: (await createRows(em, ctx, [{ values, recordTypeId: data.recordTypeId as number | undefined }]))[0] };
      case 'UPDATE':
        return { output: await updateRow(em, ctx, rowId, { values }) };
      case 'CHANGE_RECORD_TYPE':
        return { output: await updateRow(em, ctx, rowId, { values: {}, recordTypeId: data.recordTypeId as number }) };
      case 'DELETE':
        await deleteRow(em, ctx, rowId);
        return { output: { deleted: rowId } };
      case 'SEARCH': {
        const page = await listRows(em, ctx, { filter: data.filter, search: data.search as string | undefined, limit: 500 });
        return { output: page.agentry };
      }
      default:
        throw ApplicationFailure.nonRetryable(`Unknown DYNAMIC_TABLES action ${String(data.action)}`, 'InvalidNode');
    }
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw ApplicationFailure.nonRetryable(error.message, error.code);
    throw error;
  }
};
