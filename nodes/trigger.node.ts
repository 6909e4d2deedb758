/**
 * TRIGGER: the entry node of event-started runs (SPEC.md, TRIGGER node data). Its `triggerType` names the event;
 * each event requires its own data (the table and record type of row events, the agents of conversation events,
 * the third-party subscription of EXTERNAL_TRIGGER). Its output is the delivered event.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { headline } from '../db/automations/headline-issues.js';
import { findConnectedAccount } from '../db/catalogs/integrations.service.js';
import { findTriggerType, validateTriggerConfig, type TriggerType } from '../db/catalogs/trigger-types.js';
import { DataTable } from '../db/tables/data-table.entity.js';
import { RecordType } from '../db/tables/record-type.entity.js';
import type { Issue } from '../lib/errors.js';
import {
  AUTOMATION_FAILED_EVENT,
  CONVERSATION_EVENTS,
  CONVERSATION_HANDED_OFF_EVENT,
  includes,
  type AutomationEvent,
} from '../lib/events/event-match.js';
import { Automation } from '../db/automations/automation.entity.js';
import { invalid, missing, notFound, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, idList, type NodeModule } from './node-module.js';

export const TRIGGER_KINDS = [
  'CONVERSATION_ENDED',
  'CONVERSATION_IDLE',
  'FEEDBACK_CAPTURED',
  'CONTACT_CREATED',
  'CONTACT_UPDATED',
  'TABLE_ROW_CREATED',
  'TABLE_ROW_UPDATED',
  'OBJECT_RECORD_CREATED',
  'OBJECT_RECORD_UPDATED',
  'INCOMING_WEBHOOK',
  'EXTERNAL_TRIGGER',
];
const CONVERSATION = CONVERSATION_EVENTS;
/** Trigger kinds beside SPEC.md's: a conversation handed to a person (with triggeredByAgentIds, as the conversation ones). */
const EXTENDED_KINDS = [...TRIGGER_KINDS, CONVERSATION_HANDED_OFF_EVENT];

/** The event and the data each event requires. */
const checkTrigger: NodeCheck = async (node, { em, accountId }) => {
  const { triggerType, triggeredBy, triggeredByTableId, triggeredByRecordTypeId, triggeredByAgentIds } = node.data;
  if (triggerType === 'SCHEDULED_TRIGGER') {
    return [invalid('triggerType', 'SCHEDULED_TRIGGER is not a valid triggerType of a TRIGGER node: add a SCHEDULED_TRIGGER node instead')];
  }
  if (triggerType === AUTOMATION_FAILED_EVENT) return checkAutomationFailed(node.data, em, accountId);
  if (typeof triggerType !== 'string' || !EXTENDED_KINDS.includes(triggerType)) {
    return [invalid('triggerType', `must be one of ${[...EXTENDED_KINDS, AUTOMATION_FAILED_EVENT].join(', ')}`)];
  }
  const issues = [];
  if (CONVERSATION.includes(triggerType)) {
    if (triggeredBy === 'USER')
      issues.push(invalid('triggeredBy', `triggeredBy USER blocks ${triggerType}: conversation events originate from the agent`));
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
  if (triggerType === 'EXTERNAL_TRIGGER') issues.push(...(await checkExternalTrigger(node.data, em, accountId)));
  return issues;
};

/** AUTOMATION_FAILED (an extension): `triggeredByWorkflowIds`, workflows of this account whose failed runs fire it. */
async function checkAutomationFailed(data: Record<string, unknown>, em: EntityManager, accountId: number): Promise<Issue[]> {
  const ids = data.triggeredByWorkflowIds;
  if (!Array.isArray(ids) || !ids.length || !ids.every((id) => Number.isInteger(id))) {
    return [missing('triggeredByWorkflowIds', 'is required for AUTOMATION_FAILED: the ids of the workflows whose failed runs start this one')];
  }
  const found = new Set((await em.find(Automation, { id: { $in: ids as number[] }, account: accountId }, { fields: ['id'] })).map((a) => a.id));
  const unknown = (ids as number[]).filter((id) => !found.has(id));
  return unknown.length ? [notFound('triggeredByWorkflowIds', `no workflow ${unknown.join(', ')} in this account`)] : [];
}

/**
 * The issue of a `validateTriggerConfig` message, at the config field it names. Its message is SPEC.md's exact
 * text, so the request's error message is that text too.
 */
function triggerConfigIssue(message: string): Issue {
  const unknown = /^Unknown trigger config field for [^:]+: (.*)$/.exec(message);
  if (unknown) return headline({ code: 'unknown_field', path: `data.triggerConfig.${unknown[1]}`, message });
  const bad = /^Invalid trigger config: (\S+) - (.*)$/.exec(message);
  const field = bad && bad[1] !== 'triggerConfig' ? `.${bad[1]}` : '';
  return headline({ code: bad?.[2] === 'is required' ? 'required' : 'invalid', path: `data.triggerConfig${field}`, message });
}

/**
 * EXTERNAL_TRIGGER (SPEC.md, TRIGGER node data): a supported `triggerSlug`, the `triggerToolkit` owning it, a
 * connected account of this account for that toolkit, and a `triggerConfig` valid for the slug. The graph service
 * subscribes only once these hold; `connectedAccountTriggerId` is output-only and never checked here.
 */
async function checkExternalTrigger(data: Record<string, unknown>, em: EntityManager, accountId: number): Promise<Issue[]> {
  const { connectedAccountId, triggerToolkit, triggerSlug, triggerConfig } = data;
  const issues: Issue[] = [];
  let type: TriggerType | undefined;
  if (triggerSlug === undefined || triggerSlug === null || triggerSlug === '') {
    issues.push(missing('triggerSlug', 'is required for EXTERNAL_TRIGGER: the slug of a trigger type (GET /integrations/trigger-types)'));
  } else if (typeof triggerSlug !== 'string') {
    issues.push(invalid('triggerSlug', 'must be a trigger slug such as GMAIL_NEW_GMAIL_MESSAGE'));
  } else {
    type = findTriggerType(triggerSlug);
    if (!type) issues.push(headline(invalid('triggerSlug', `Unsupported trigger: ${triggerSlug}`)));
  }

  if (triggerToolkit === undefined || triggerToolkit === null || triggerToolkit === '') {
    issues.push(missing('triggerToolkit', type ? `is required: ${type.toolkit} for ${type.slug}` : 'is required for EXTERNAL_TRIGGER'));
  } else if (type && triggerToolkit !== type.toolkit) {
    issues.push(invalid('triggerToolkit', `must be ${type.toolkit}, the toolkit of ${type.slug}`));
  } else if (typeof triggerToolkit !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(triggerToolkit)) {
    issues.push(invalid('triggerToolkit', 'must be an uppercase toolkit name such as GMAIL'));
  }

  if (type) {
    const checked = validateTriggerConfig(type.slug, triggerConfig);
    if ('message' in checked) issues.push(triggerConfigIssue(checked.message));
  }

  if (connectedAccountId === undefined || connectedAccountId === null) {
    issues.push(missing('connectedAccountId', 'is required for EXTERNAL_TRIGGER: the id of a connected account (GET /integrations)'));
  } else if (!Number.isInteger(connectedAccountId)) {
    issues.push(invalid('connectedAccountId', 'must be the numeric id of a connected account (GET /integrations)'));
  } else {
    const connected = await findConnectedAccount(em, accountId, connectedAccountId as number);
    if (!connected) issues.push(notFound('connectedAccountId', `no connected account ${connectedAccountId} in this account`));
    else if (type && connected.toolkit !== type.toolkit) {
      issues.push(
        invalid(
          'connectedAccountId',
          `connected account ${connected.id} is a ${connected.toolkit} account; ${type.slug} needs a ${type.toolkit} account`,
        ),
      );
    } else if (connected.status !== 'ACTIVE') {
      issues.push(invalid('connectedAccountId', `connected account ${connected.id} is ${connected.status}: reconnect it before subscribing`));
    }
  }
  return issues;
}

/**
 * Whether a TRIGGER node with `data` subscribes to `event`. Only a trigger whose `triggerType` is the event's type starts on an
 * event other than a webhook call: row changes nobody could start are written already dispatched on that ground
 * (db/tables/row-events.ts).
 */
function matchesEvent(data: Record<string, unknown>, event: AutomationEvent): boolean {
  const { payload } = event;
  if (event.type === AUTOMATION_FAILED_EVENT) return data.triggerType === event.type && includes(data.triggeredByWorkflowIds, payload.automationId);
  if (event.type === 'INCOMING_WEBHOOK') return data.triggerType === 'INCOMING_WEBHOOK' && includes(data.triggerByWebhookIds, payload.webhookId);
  if (data.triggerType !== event.type) return false;
  if (event.type.startsWith('TABLE_ROW_')) return data.triggeredByTableId === payload.tableId;
  if (event.type.startsWith('OBJECT_RECORD_')) {
    return data.triggeredByTableId === payload.tableId && data.triggeredByRecordTypeId === payload.recordTypeId;
  }
  if (event.type.startsWith('CONTACT_')) return data.triggeredByRecordTypeId == null || data.triggeredByRecordTypeId === payload.recordTypeId;
  // SPEC.md: a conversation trigger without triggeredByAgentIds is accepted and never fires; USER blocks them.
  if (CONVERSATION.includes(event.type)) return data.triggeredBy !== 'USER' && includes(data.triggeredByAgentIds, payload.agentId);
  if (event.type === 'EXTERNAL_TRIGGER') {
    return typeof data.connectedAccountTriggerId === 'string' && data.connectedAccountTriggerId === payload.connectedAccountTriggerId;
  }
  return false;
}

export const triggerNode: NodeModule = {
  type: 'TRIGGER',
  scopes: ['automation'],
  summary: 'Event-based entry point: the run starts when the event of triggerType happens; its output is the event',
  data: {
    required: ['triggerType'],
    properties: {
      triggerType: {
        type: 'string',
        description:
          `One of ${TRIGGER_KINDS.join(', ')}; or, as extensions, ${CONVERSATION_HANDED_OFF_EVENT}: a conversation of an agent of triggeredByAgentIds ` +
          `was handed to a person, and ${AUTOMATION_FAILED_EVENT}: a run of a workflow of triggeredByWorkflowIds failed`,
      },
      triggeredByWorkflowIds: idList('workflows whose failed runs fire it (AUTOMATION_FAILED)', { type: 'integer' }),
      triggeredBy: { type: ['string', 'null'], description: 'USER blocks the conversation triggers' },
      triggeredByTableId: { type: ['integer', 'null'], description: 'Table (TABLE_ROW_*) or Object (OBJECT_RECORD_*) whose rows fire it' },
      triggeredByRecordTypeId: { type: ['integer', 'null'], description: 'Record type of the Object (OBJECT_RECORD_*, CONTACT_*)' },
      triggeredByAgentIds: idList('agents (conversation triggers)', { type: 'string' }),
      triggerByWebhookIds: idList('incoming webhooks (INCOMING_WEBHOOK)', { type: 'string' }),
      connectedAccountId: { type: ['integer', 'null'], description: 'EXTERNAL_TRIGGER: a connected account (GET /integrations)' },
      triggerToolkit: { type: ['string', 'null'], description: 'EXTERNAL_TRIGGER: toolkit owning the event, e.g. GMAIL' },
      triggerSlug: { type: ['string', 'null'], description: 'EXTERNAL_TRIGGER: trigger slug (GET /integrations/trigger-types)' },
      triggerConfig: { type: ['object', 'null'], description: 'EXTERNAL_TRIGGER: configuration validated per slug' },
      connectedAccountTriggerId: { type: 'string', readOnly: true, description: 'EXTERNAL_TRIGGER: the subscription (output only)' },
    },
  },
  handles: DEFAULT_HANDLES,
  entry: true,
  matchesEvent,
  checks: [checkTrigger],
};
