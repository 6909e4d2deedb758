import { expect } from 'chai';
import { entryMatches } from '../../nodes/registry.js';
import { closesLoop, MAX_CHAIN, triggerPayloadOf } from '../../lib/events/event-match.js';
import type { GraphNode } from '../../lib/graph/graph.js';

const node = (type: string, data: Record<string, unknown>): GraphNode => ({
  nodeId: 'node_1',
  alias: 'n',
  position: { positionX: 0, positionY: 0 },
  type,
  data: { type, ...data },
  edges: [],
});
const trigger = (data: Record<string, unknown>) => node('TRIGGER', data);

describe('which entry nodes an event starts', () => {
  it('webhook calls start WEBHOOK nodes (and INCOMING_WEBHOOK triggers) subscribed to that webhook only', () => {
    const event = { type: 'INCOMING_WEBHOOK', payload: { webhookId: 'wh_a', body: { x: 1 } } };
    expect(entryMatches(node('WEBHOOK', { triggerByWebhookIds: ['wh_b', 'wh_a'] }), event)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'INCOMING_WEBHOOK', triggerByWebhookIds: ['wh_a'] }), event)).to.equal(true);
    expect(entryMatches(node('WEBHOOK', { triggerByWebhookIds: ['wh_b'] }), event)).to.equal(false);
    expect(entryMatches(node('WEBHOOK', {}), event)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'TABLE_ROW_CREATED', triggerByWebhookIds: ['wh_a'] }), event)).to.equal(false);
    expect(triggerPayloadOf(event)).to.deep.equal({ x: 1 });
  });

  it('row events match the event, the table and, for Objects, the record type', () => {
    const row = { type: 'TABLE_ROW_CREATED', payload: { tableId: 7, recordTypeId: null } };
    expect(entryMatches(trigger({ triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: 7 }), row)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: 8 }), row)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'TABLE_ROW_UPDATED', triggeredByTableId: 7 }), row)).to.equal(false);
    const record = { type: 'OBJECT_RECORD_UPDATED', payload: { tableId: 3, recordTypeId: 11 } };
    expect(entryMatches(trigger({ triggerType: 'OBJECT_RECORD_UPDATED', triggeredByTableId: 3, triggeredByRecordTypeId: 11 }), record)).to.equal(
      true,
    );
    expect(entryMatches(trigger({ triggerType: 'OBJECT_RECORD_UPDATED', triggeredByTableId: 3, triggeredByRecordTypeId: 12 }), record)).to.equal(
      false,
    );
    const contact = { type: 'CONTACT_CREATED', payload: { tableId: 1, recordTypeId: 4 } };
    expect(entryMatches(trigger({ triggerType: 'CONTACT_CREATED' }), contact)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'CONTACT_CREATED', triggeredByRecordTypeId: 5 }), contact)).to.equal(false);
    expect(triggerPayloadOf(record)).to.deep.equal(record.payload);
  });

  it('conversation events need the agent in triggeredByAgentIds, and triggeredBy USER blocks them', () => {
    const event = { type: 'CONVERSATION_ENDED', payload: { agentId: 'a1', conversationId: 'c' } };
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: ['a1'] }), event)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_ENDED' }), event)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: ['a2'] }), event)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: ['a1'], triggeredBy: 'USER' }), event)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'FEEDBACK_CAPTURED', triggeredByAgentIds: ['a1'] }), event)).to.equal(false);
    // CONVERSATION_HANDED_OFF (an extension) selects its agents the same way.
    const handedOff = { type: 'CONVERSATION_HANDED_OFF', payload: { agentId: 'a1', conversationId: 'c', by: 'AI' } };
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_HANDED_OFF', triggeredByAgentIds: ['a1'] }), handedOff)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_HANDED_OFF', triggeredByAgentIds: ['a2'] }), handedOff)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: ['a1'] }), handedOff)).to.equal(false);
  });

  it('third-party deliveries match the subscription of the node', () => {
    const event = { type: 'EXTERNAL_TRIGGER', payload: { connectedAccountTriggerId: 'sub_1', data: {} } };
    expect(entryMatches(trigger({ triggerType: 'EXTERNAL_TRIGGER', connectedAccountTriggerId: 'sub_1' }), event)).to.equal(true);
    expect(entryMatches(trigger({ triggerType: 'EXTERNAL_TRIGGER', connectedAccountTriggerId: 'sub_2' }), event)).to.equal(false);
    expect(entryMatches(trigger({ triggerType: 'EXTERNAL_TRIGGER' }), event)).to.equal(false);
    expect(entryMatches(node('SCHEDULED_TRIGGER', { cronExpression: '* * * * *' }), event)).to.equal(false);
  });

  it('a run closes a loop when its automation already caused the event, or the chain is too long', () => {
    expect(closesLoop(null, 1)).to.equal(false);
    expect(closesLoop([], 1)).to.equal(false);
    expect(closesLoop([2, 3], 1)).to.equal(false);
    expect(closesLoop([1, 2], 1)).to.equal(true);
    expect(closesLoop([2], 2)).to.equal(true);
    expect(
      closesLoop(
        Array.from({ length: MAX_CHAIN }, (_, i) => i + 10),
        1,
      ),
    ).to.equal(true);
  });
});
