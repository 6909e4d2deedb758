/**
 * Which entry nodes an event starts (pure: the dispatcher and its unit tests share it). Events come from the outbox:
 * INCOMING_WEBHOOK, TABLE_ROW_* / OBJECT_RECORD_* / CONTACT_* row events, the conversation events and
 * EXTERNAL_TRIGGER deliveries. SCHEDULED_TRIGGER nodes are started by Temporal Schedules, not by events.
 */
import type { GraphNode } from '../graph/graph.js';

export const CONVERSATION_EVENTS = ['CONVERSATION_ENDED', 'CONVERSATION_IDLE', 'FEEDBACK_CAPTURED'];
export const ROW_EVENTS = ['TABLE_ROW_CREATED', 'TABLE_ROW_UPDATED', 'OBJECT_RECORD_CREATED', 'OBJECT_RECORD_UPDATED', 'CONTACT_CREATED', 'CONTACT_UPDATED'];
export const EVENT_TYPES = ['INCOMING_WEBHOOK', 'EXTERNAL_TRIGGER', ...ROW_EVENTS, ...CONVERSATION_EVENTS];

/** Node types that can be the entry of an event-started run. */
export const EVENT_ENTRY_TYPES = ['WEBHOOK', 'TRIGGER'];

export interface AutomationEvent {
  type: string;
  payload: Record<string, unknown>;
}

const includes = (list: unknown, value: unknown): boolean => Array.isArray(list) && value !== undefined && list.includes(value);

/** Whether `node` (an entry node of a live graph) subscribes to `event`. */
export function entryMatches(node: GraphNode, event: AutomationEvent): boolean {
  const { data } = node;
  const { payload } = event;
  if (event.type === 'INCOMING_WEBHOOK') {
    const entry = node.type === 'WEBHOOK' || (node.type === 'TRIGGER' && data.triggerType === 'INCOMING_WEBHOOK');
    return entry && includes(data.triggerByWebhookIds, payload.webhookId);
  }
  if (node.type !== 'TRIGGER' || data.triggerType !== event.type) return false;
  if (event.type.startsWith('TABLE_ROW_')) return data.triggeredByTableId === payload.tableId;
  if (event.type.startsWith('OBJECT_RECORD_')) {
    return data.triggeredByTableId === payload.tableId && data.triggeredByRecordTypeId === payload.recordTypeId;
  }
  if (event.type.startsWith('CONTACT_')) return data.triggeredByRecordTypeId == null || data.triggeredByRecordTypeId === payload.recordTypeId;
  // SPEC.md: a conversation trigger without triggeredByAgentIds is accepted and never fires; USER blocks them.
  if (CONVERSATION_EVENTS.includes(event.type)) return data.triggeredBy !== 'USER' && includes(data.triggeredByAgentIds, payload.agentId);
  if (event.type === 'EXTERNAL_TRIGGER') {
    return typeof data.connectedAccountTriggerId === 'string' && data.connectedAccountTriggerId === payload.connectedAccountTriggerId;
  }
  return false;
}

/** `{trigger_payload}` of a run started by the event: a webhook call's JSON body, the whole event otherwise. */
export function triggerPayloadOf(event: AutomationEvent): unknown {
  return event.type === 'INCOMING_WEBHOOK' ? (event.payload.body ?? null) : event.payload;
}

/** Events longer than this chain of automations are stopped as a loop even without a repeated automation. */
export const MAX_CHAIN = 10;

/** Whether a run of `workflowId` caused by an event with this chain would close a loop. */
export function closesLoop(chain: readonly number[] | null | undefined, workflowId: number): boolean {
  return !!chain && (chain.includes(workflowId) || chain.length >= MAX_CHAIN);
}
