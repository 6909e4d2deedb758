/**
 * Outbox events that start a workflow of their own rather than automation runs: no entry node matches them and they
 * take no admission slot (they are not runs). Each maps to its workflow type, id and input; the id comes from the
 * event's payload, so a redelivered event starts nothing twice (REJECT_DUPLICATE). A `signal` start signals the
 * workflow instead, starting it when it is not running (a conversation's deliveries: one workflow, many messages).
 */
import type { PendingEvent } from '../db/automations/event-subscribers.js';
import { indexWorkflowId, KNOWLEDGE_INDEX_EVENT, type IndexDocumentInput } from '../lib/knowledge/indexing-contract.js';
import { CHANNEL_EVENTS } from '../lib/channels/meta-protocol.js';
import { deliveryStart, inboundStart, type DeliveryEvent, type InboundMessageEvent } from '../lib/channels/channel-contract.js';

export interface DirectStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /** On the conversation turns' queue instead of the automation runs'. */
  turns?: true;
  /** Signal-with-start: this signal, to the workflow running under the id or to one started for it. */
  signal?: { name: string; args: unknown[] };
}

export const DIRECT_STARTS: Record<string, ((event: PendingEvent) => DirectStart) | undefined> = {
  [KNOWLEDGE_INDEX_EVENT]: (event) => {
    const input = event.payload as unknown as IndexDocumentInput;
    return { workflowType: 'indexKnowledgeDocument', workflowId: indexWorkflowId(input), args: [input] };
  },
  [CHANNEL_EVENTS.message]: (event) => ({ ...inboundStart(event.payload as unknown as InboundMessageEvent), turns: true }),
  [CHANNEL_EVENTS.status]: (event) => ({
    workflowType: 'channelStatus',
    workflowId: `channel-status:${event.id}`,
    args: [event.payload],
    turns: true,
  }),
  [CHANNEL_EVENTS.delivery]: (event) => ({ ...deliveryStart(event.payload as unknown as DeliveryEvent), turns: true }),
};
