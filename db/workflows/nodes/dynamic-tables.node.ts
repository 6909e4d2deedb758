import type { Issue } from '../../../lib/errors.js';
import { DataTable, RecordType } from '../../entities/index.js';
import { isRecord } from './compose.js';
import { unknownReferences } from './interpolation.js';
import { invalid, missing, notFound, type NodeCheck, type NodeCheckContext } from './types.js';

export const TABLE_ACTIONS = ['CREATE', 'UPDATE', 'DELETE', 'SEARCH', 'CHANGE_RECORD_TYPE'];

/** `tableId` (a Table or Object of the account) and `recordTypeId` (a record type of that table). */
async function tableIssues(data: Record<string, unknown>, { em, accountId }: NodeCheckContext): Promise<Issue[]> {
  const { tableId, recordTypeId, action } = data;
  const issues: Issue[] = [];
  let table: DataTable | null = null;
  if (tableId === undefined) issues.push(missing('tableId'));
  else if (!Number.isInteger(tableId)) issues.push(invalid('tableId', 'must be the numeric id of a Table or Object'));
  else {
    table = await em.findOne(DataTable, { id: tableId as number, account: accountId });
    if (!table) issues.push(notFound('tableId', `no Table or Object ${tableId} in this account`));
  }
  if (recordTypeId === undefined || recordTypeId === null) {
    if (action === 'CHANGE_RECORD_TYPE') issues.push(missing('recordTypeId', 'is required for CHANGE_RECORD_TYPE (the record type to move the record to)'));
  } else if (!Number.isInteger(recordTypeId)) issues.push(invalid('recordTypeId', 'must be the numeric id of a record type'));
  else {
    const recordType = await em.findOne(RecordType, { id: recordTypeId as number, table: { account: accountId } });
    if (!recordType) issues.push(notFound('recordTypeId', `no record type ${recordTypeId} in this account`));
    else if (table && recordType.table.id !== table.id) {
      issues.push(invalid('recordTypeId', `record type ${recordTypeId} does not belong to "${table.displayName}" (table ${table.id})`));
    }
  }
  return issues;
}

/**
 * DYNAMIC_TABLES: an action on the records of a Table or Object of the account; `rowId`, `search` and the values
 * of `rowData` are interpolable, and the variables they name must exist.
 */
export const checkDynamicTables: NodeCheck = async (node, ctx) => {
  const { action, rowId, search, rowData } = node.data;
  const issues: Issue[] = [];
  if (action === undefined) issues.push(missing('action', `is required: one of ${TABLE_ACTIONS.join(', ')}`));
  else if (!TABLE_ACTIONS.includes(action as string)) issues.push(invalid('action', `must be one of ${TABLE_ACTIONS.join(', ')}`));
  issues.push(...(await tableIssues(node.data, ctx)));
  for (const [key, value] of [['rowId', rowId], ['search', search]] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') issues.push(invalid(key, 'must be a string (variables as {name})'));
    else issues.push(...unknownReferences(key, value, ctx));
  }
  if (rowData !== undefined && rowData !== null) {
    if (!isRecord(rowData)) issues.push(invalid('rowData', 'must be an object of field names to values'));
    else issues.push(...unknownReferences('rowData', rowData, ctx));
  }
  return issues;
};
