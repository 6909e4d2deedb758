import { DataTable, RecordType } from '../../entities/index.js';
import { unknownReferences } from './interpolation.js';
import { invalid, missing, notFound, type NodeCheck } from './types.js';

export const ACTIVITY_TYPES = ['NOTE', 'EMAIL', 'PHONE_CALL', 'MEETING', 'MESSAGING'];

/** CREATE_RECORD_ACTIVITY: an Object's record type, an activity type, and interpolated row id and content. */
export const checkCreateRecordActivity: NodeCheck = async (node, ctx) => {
  const { recordTypeId, rowId, activityType, content } = node.data;
  const issues = [];
  if (!Number.isInteger(recordTypeId)) issues.push(missing('recordTypeId'));
  else {
    const recordType = await ctx.em.findOne(RecordType, { id: recordTypeId as number, table: { account: ctx.accountId } }, { populate: ['table'] });
    if (!recordType) issues.push(notFound('recordTypeId', `no record type ${recordTypeId} in this account`));
    else if ((recordType.table as DataTable).kind !== 'OBJECT') issues.push(invalid('recordTypeId', 'must be a record type of an Object, not a Table'));
  }
  if (!ACTIVITY_TYPES.includes(activityType as string)) issues.push(invalid('activityType', `must be one of ${ACTIVITY_TYPES.join(', ')}`));
  for (const [key, value] of [['rowId', rowId], ['content', content]] as const) {
    if (typeof value !== 'string' || !value) {
      issues.push(missing(key));
      continue;
    }
    issues.push(...unknownReferences(key, value, ctx));
  }
  return issues;
};
