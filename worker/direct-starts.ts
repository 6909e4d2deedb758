/**
 * Outbox events that start a workflow of their own rather than automation runs: no entry node matches them and they
 * take no admission slot (they are not runs). Each maps to its workflow type, id and input; the id comes from the
 * event's payload, so a redelivered event starts nothing twice (REJECT_DUPLICATE).
 */
import type { PendingEvent } from '../db/automations/event-subscribers.js';
import { indexWorkflowId, KNOWLEDGE_INDEX_EVENT, type IndexDocumentInput } from '../lib/knowledge/indexing-contract.js';

export interface DirectStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
}

export const DIRECT_STARTS: Record<string, ((event: PendingEvent) => DirectStart) | undefined> = {
  [KNOWLEDGE_INDEX_EVENT]: (event) => {
    const input = event.payload as unknown as IndexDocumentInput;
    return { workflowType: 'indexKnowledgeDocument', workflowId: indexWorkflowId(input), args: [input] };
  },
};
