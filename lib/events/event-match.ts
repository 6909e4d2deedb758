/**
 * Events of the outbox that start runs (pure): INCOMING_WEBHOOK, TABLE_ROW_* / OBJECT_RECORD_* / CONTACT_* row
 * events, the conversation events and EXTERNAL_TRIGGER deliveries. Which entry nodes an event starts is declared
 * by the node modules (`matchesEvent`); SCHEDULED_TRIGGER nodes are started by Temporal Schedules, not by events.
 */

/**
 * A conversation was handed to a person (an extension beside SPEC.md's conversation triggers, issue 46): written
 * once per handoff by the handoff's bookkeeping (activities/handoff.activity.ts), for TRIGGER nodes listing the agent
 * in `triggeredByAgentIds`.
 */
export const CONVERSATION_HANDED_OFF_EVENT = 'CONVERSATION_HANDED_OFF';
export const CONVERSATION_EVENTS = ['CONVERSATION_ENDED', 'CONVERSATION_IDLE', 'FEEDBACK_CAPTURED', CONVERSATION_HANDED_OFF_EVENT];
export const ROW_EVENTS = [
  'TABLE_ROW_CREATED',
  'TABLE_ROW_UPDATED',
  'OBJECT_RECORD_CREATED',
  'OBJECT_RECORD_UPDATED',
  'CONTACT_CREATED',
  'CONTACT_UPDATED',
];
/**
 * A run of an automation failed (an extension beside SPEC.md's trigger kinds): written by the run's ledger end
 * (db/automations/run-ledger.ts) for TRIGGER nodes listing the automation in `triggeredByWorkflowIds`.
 */
export const AUTOMATION_FAILED_EVENT = 'AUTOMATION_FAILED';
export const EVENT_TYPES = ['INCOMING_WEBHOOK', 'EXTERNAL_TRIGGER', ...ROW_EVENTS, ...CONVERSATION_EVENTS, AUTOMATION_FAILED_EVENT];

export interface AutomationEvent {
  type: string;
  payload: Record<string, unknown>;
}

/** Whether `list` is an array holding `value` (how node data lists the webhooks, agents … it subscribes to). */
export const includes = (list: unknown, value: unknown): boolean => Array.isArray(list) && value !== undefined && list.includes(value);

/** `{trigger_payload}` of a run started by the event: a webhook call's JSON body, the whole event otherwise. */
export function triggerPayloadOf(event: AutomationEvent): unknown {
  return event.type === 'INCOMING_WEBHOOK' ? (event.payload.body ?? null) : event.payload;
}

/** Events longer than this chain of automations are stopped as a loop even without a repeated automation. */
export const MAX_CHAIN = 10;

/** Whether a run of the automation `automationId` caused by an event with this chain would close a loop. */
export function closesLoop(chain: readonly number[] | null | undefined, automationId: number): boolean {
  return !!chain && (chain.includes(automationId) || chain.length >= MAX_CHAIN);
}
