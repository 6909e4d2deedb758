import { DataTable, RecordType } from '../../entities/index.js';
import { invalid, missing, notFound, type NodeCheck } from './types.js';

export const TRIGGER_KINDS = [
  'CONVERSATION_ENDED', 'CONVERSATION_IDLE', 'FEEDBACK_CAPTURED', 'CONTACT_CREATED', 'CONTACT_UPDATED',
  'TABLE_ROW_CREATED', 'TABLE_ROW_UPDATED', 'OBJECT_RECORD_CREATED', 'OBJECT_RECORD_UPDATED', 'INCOMING_WEBHOOK', 'EXTERNAL_TRIGGER',
];
const CONVERSATION = ['CONVERSATION_ENDED', 'CONVERSATION_IDLE', 'FEEDBACK_CAPTURED'];

/** TRIGGER: the event, and the data each event requires (SPEC.md, TRIGGER node data). */
export const checkTrigger: NodeCheck = async (node, { em, accountId }) => {
  const { triggerType, triggeredBy, triggeredByTableId, triggeredByRecordTypeId, triggeredByAgentIds } = node.data;
  if (triggerType === 'SCHEDULED_TRIGGER') {
    return [invalid('triggerType', 'SCHEDULED_TRIGGER is not a valid triggerType of a TRIGGER node: add a SCHEDULED_TRIGGER node instead')];
  }
  if (typeof triggerType !== 'string' || !TRIGGER_KINDS.includes(triggerType)) {
    return [invalid('triggerType', `must be one of ${TRIGGER_KINDS.join(', ')}`)];
  }
  const issues = [];
  if (CONVERSATION.includes(triggerType)) {
    if (triggeredBy === 'USER') issues.push(invalid('triggeredBy', `triggeredBy USER blocks ${triggerType}: conversation events originate from the agent`));
    if (triggeredByAgentIds !== undefined && !(Array.isArray(triggeredByAgentIds) && triggeredByAgentIds.every((id) => typeof id === 'string'))) {
      issues.push(invalid('triggeredByAgentIds', 'must be an array of agent ids'));
    }
  }
  if (triggerType.startsWith('TABLE_ROW_') || triggerType.startsWith('OBJECT_RECORD_')) {
    const kind = triggerType.startsWith('TABLE_ROW_') ? 'TABLE' : 'OBJECT';
    if (!Number.isInteger(triggeredByTableId)) issues.push(missing('triggeredByTableId', `is required for ${triggerType}`));
    else {
      const table = await em.findOne(DataTable, { id: triggeredByTableId as number, account: accountId, kind });
      if (!table) issues.push(notFound('triggeredByTableId', `no ${kind === 'TABLE' ? 'Table' : 'Object'} ${triggeredByTableId} in this account`));
      else if (kind === 'OBJECT') {
        if (!Number.isInteger(triggeredByRecordTypeId)) issues.push(missing('triggeredByRecordTypeId', `is required for ${triggerType}`));
        else if (!(await em.count(RecordType, { id: triggeredByRecordTypeId as number, table }))) {
          issues.push(notFound('triggeredByRecordTypeId', `no record type ${triggeredByRecordTypeId} in "${table.name}"`));
        }
      }
    }
  }
  return issues;
};
