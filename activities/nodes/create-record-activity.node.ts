import { ApplicationFailure, Context } from '@temporalio/activity';
import { RECORD_ACTIVITY_TYPES, RecordType, type DataTable, type RecordActivityType } from '../../db/entities/index.js';
import { createActivity } from '../../db/tables/record-activities.service.js';
import { AppError } from '../../lib/errors.js';
import type { NodeExecutor } from './types.js';

/**
 * The Temporal workflow id of the run (the activity's `source.runId`) and a key naming this node execution, the
 * same for every retry of it, so a retry after a lost completion does not log the activity twice.
 */
function execution(): { runId?: string; idempotencyKey?: string } {
  try {
    const { workflowExecution, activityId } = Context.current().info;
    return workflowExecution ? { runId: workflowExecution.workflowId, idempotencyKey: `${workflowExecution.runId}/${activityId}` } : {};
  } catch {
    return {};
  }
}

/**
 * CREATE_RECORD_ACTIVITY: logs an auto-generated activity on a record of the Object that `recordTypeId` belongs
 * to. A record type, Object or record that does not exist fails the node at once (retrying cannot bring it back),
 * with the service's message naming the row id. The output is the created activity.
 */
export const executeCreateRecordActivity: NodeExecutor = async ({ accountId, workflowId, data }, { orm }) => {
  const em = orm.em.fork();
  const recordType = await em.findOne(RecordType, { id: Number(data.recordTypeId), table: { account: accountId, kind: 'OBJECT' } }, { populate: ['table'] });
  if (!recordType) throw ApplicationFailure.nonRetryable(`Record type ${String(data.recordTypeId)} of an Object no longer exists`, 'InvalidNode');
  const table = recordType.table as DataTable;
  const rowId = String(data.rowId ?? '').trim();
  const type = data.activityType as RecordActivityType;
  if (!RECORD_ACTIVITY_TYPES.includes(type)) throw ApplicationFailure.nonRetryable(`Unknown activityType ${String(data.activityType)}`, 'InvalidNode');
  try {
    const { runId, idempotencyKey } = execution();
    const content = String(data.content ?? '');
    const output = await createActivity(em, table, rowId, { type, content }, { source: { workflowId, runId }, idempotencyKey });
    return { output };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw ApplicationFailure.nonRetryable(error.message, error.code);
    throw error;
  }
};
