import { ApplicationFailure, Context } from '@temporalio/activity';
import { DataTable } from '../../db/entities/index.js';
import { fieldModels } from '../../db/tables/catalog.js';
import { derivedObjectId } from '../../db/tables/object-id.js';
import { listRows } from '../../db/tables/rows-query.service.js';
import { createRows, deleteRow, getRow, updateRow, type TableContext } from '../../db/tables/rows.service.js';
import { AppError, NotFoundError } from '../../lib/errors.js';
import type { NodeExecutor } from './types.js';

/**
 * DYNAMIC_TABLES: create, update, delete, search or change the record type of records through the same data plane
 * as the API. Bad input (unknown field, invalid value, missing record) fails the node at once; SEARCH answers a
 * top-level array of rows. Retries are safe: CREATE derives the record id from the node's execution, so a retry
 * after a lost completion answers the record its earlier attempt created; DELETE on a retry accepts that the
 * record is already gone; UPDATE writes the same values again.
 */
export const executeDynamicTables: NodeExecutor = async ({ accountId, data, chain }, { orm }) => {
  const em = orm.em.fork();
  const table = await em.findOne(DataTable, { id: Number(data.tableId), account: accountId });
  if (!table) throw ApplicationFailure.nonRetryable(`Table ${data.tableId} no longer exists`, 'InvalidNode');
  const ctx: TableContext = { table, fields: await fieldModels(em, table), chain };
  const values = (data.rowData ?? {}) as Record<string, unknown>;
  const rowId = String(data.rowId ?? '');
  const { info } = Context.current();
  try {
    switch (data.action) {
      case 'CREATE': {
        const run = info.workflowExecution;
        const id = run ? derivedObjectId(`${run.workflowId}/${run.runId}/${info.activityId}`, new Date(info.scheduledTimestampMs)) : undefined;
        if (id && info.attempt > 1) {
          const earlier = await getRow(em, ctx, id).catch((error) => (error instanceof NotFoundError ? undefined : Promise.reject(error)));
          if (earlier) return { output: earlier };
        }
        return { output: (await createRows(em, ctx, [{ values, recordTypeId: data.recordTypeId as number | undefined, id }]))[0] };
      }
      case 'UPDATE':
        return { output: await updateRow(em, ctx, rowId, { values }) };
      case 'CHANGE_RECORD_TYPE':
        return { output: await updateRow(em, ctx, rowId, { values: {}, recordTypeId: data.recordTypeId as number }) };
      case 'DELETE':
        await deleteRow(em, ctx, rowId).catch((error) => (info.attempt > 1 && error instanceof NotFoundError ? undefined : Promise.reject(error)));
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
