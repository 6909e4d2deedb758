/**
 * CREATE_RECORD_ACTIVITY (SPEC.md, flows and workflows): logs an auto-generated activity on a record of the Object
 * that `recordTypeId` belongs to. A record type, Object or record that does not exist fails the node at once. The
 * activity is keyed by the node execution, so a retry after a lost completion answers the activity logged then.
 */
import { RECORD_ACTIVITY_TYPES, type RecordActivityType } from '../db/tables/record-activity.entity.js';
import { RecordType } from '../db/tables/record-type.entity.js';
import type { DataTable } from '../db/tables/data-table.entity.js';
import { createActivity } from '../db/tables/record-activities.service.js';
import { toVariableString } from '../lib/runtime/path.js';
import { invalid, notFound, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

export const ACTIVITY_TYPES = ['NOTE', 'EMAIL', 'PHONE_CALL', 'MEETING', 'MESSAGING'];

const checkRecordType: NodeCheck = async (node, { em, accountId }) => {
  const recordType = await em.findOne(RecordType, { id: node.data.recordTypeId as number, table: { account: accountId } }, { populate: ['table'] });
  if (!recordType) return [notFound('recordTypeId', `no record type ${String(node.data.recordTypeId)} in this account`)];
  if ((recordType.table as DataTable).kind !== 'OBJECT') return [invalid('recordTypeId', 'must be a record type of an Object, not a Table')];
  return [];
};

const executeCreateRecordActivity: NodeExecutor = async ({ accountId, automationId, data, executionKey }, { orm, temporalWorkflowId }) => {
  const em = orm.em.fork();
  const recordType = await em.findOne(
    RecordType,
    { id: Number(data.recordTypeId), table: { account: accountId, kind: 'OBJECT' } },
    { populate: ['table'] },
  );
  if (!recordType) throw new NodeError(`Record type ${String(data.recordTypeId)} of an Object no longer exists`, 'InvalidNode');
  const type = data.activityType as RecordActivityType;
  if (!RECORD_ACTIVITY_TYPES.includes(type)) throw new NodeError(`Unknown activityType ${String(data.activityType)}`, 'InvalidNode');
  const rowId = (toVariableString(data.rowId) ?? '').trim();
  const content = toVariableString(data.content) ?? '';
  const source = { workflowId: automationId, runId: temporalWorkflowId };
  return { output: await createActivity(em, recordType.table as DataTable, rowId, { type, content }, { source, idempotencyKey: executionKey }) };
};

export const createRecordActivityNode: NodeModule = {
  type: 'CREATE_RECORD_ACTIVITY',
  scopes: ['automation', 'flow'],
  summary: 'Logs an activity (note, email, call, meeting, message) on an Object record',
  data: {
    required: ['recordTypeId', 'rowId', 'activityType', 'content'],
    properties: {
      recordTypeId: { type: 'integer', description: 'A record type of an Object of the account' },
      rowId: { type: 'string', minLength: 1, description: 'The record; interpolable' },
      activityType: { enum: ACTIVITY_TYPES },
      content: { type: 'string', minLength: 1, maxLength: 100000, description: 'Activity text; interpolable' },
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['rowId', 'content'],
  checks: [checkRecordType],
  execute: executeCreateRecordActivity,
};
