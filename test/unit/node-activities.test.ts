import { expect } from 'chai';
import type { AiReply } from '../../lib/runtime/ai-call.js';
import type { ExecuteNodeInput, NodeOutcome } from '../../lib/runtime/contract.js';
import { afterAiCall, firstNodeActivity, isNodeActivity, leavesNodeInFlight } from '../../lib/runtime/node-activities.js';

const input: ExecuteNodeInput = {
  accountId: 1,
  automationId: 2,
  node: { nodeId: 'n1', alias: 'n1', type: 'SAY_AI' },
  data: { type: 'SAY_AI' },
  executionKey: 'automation:2:unit/run#1',
};
const reply: AiReply = {
  kind: 'chat',
  content: 'hi',
  toolCalls: [],
  record: { model: 'm', promptTokens: 1, completionTokens: 1, latencyMs: 1, credits: 2 },
};
const asking: NodeOutcome = {
  aiCall: {
    accountId: 1,
    callKey: 'automation:2:unit/run#1/ai-1',
    model: { externalId: 'm', name: 'M', creditsPerMessage: 2 },
    call: { kind: 'chat', messages: [] },
  },
  aiState: { round: 1 },
};

describe('node activities: one node execution as activities', () => {
  it('names the node activities, not the AI call', () => {
    expect(['executeNode', 'prepareAiNode', 'finishAiNode'].every(isNodeActivity)).to.equal(true);
    expect(isNodeActivity('aiCall')).to.equal(false);
    expect(isNodeActivity(undefined)).to.equal(false);
  });

  it('an AI node in steps: prepareAiNode, then finishAiNode with every reply and the state passed on', () => {
    expect(firstNodeActivity(true)).to.equal('prepareAiNode');
    const after = afterAiCall(true, input, [reply], asking);
    expect(after).to.deep.equal({ activity: 'finishAiNode', input: { ...input, aiReplies: [reply], aiState: { round: 1 } } });
    expect(afterAiCall(true, input, [reply], { aiCall: asking.aiCall }).input.aiState).to.equal(null);
  });

  it('before steps: executeNode, then executeNode again with every reply and no state (as those histories recorded it)', () => {
    expect(firstNodeActivity(false)).to.equal('executeNode');
    const after = afterAiCall(false, input, [reply, reply], asking);
    expect(after).to.deep.equal({ activity: 'executeNode', input: { ...input, aiReplies: [reply, reply] } });
    expect(after.input).not.to.have.property('aiState');
  });

  it('copies the replies: a later reply does not change the input of an activity already asked for', () => {
    const replies = [reply];
    const after = afterAiCall(true, input, replies, asking);
    replies.push(reply);
    expect(after.input.aiReplies).to.have.length(1);
  });

  it('a node stays in flight through an outcome asking for an AI call and the call itself; a failure or an output ends it', () => {
    expect(leavesNodeInFlight('prepareAiNode', { failed: false, outcome: asking })).to.equal(true);
    expect(leavesNodeInFlight('executeNode', { failed: false, outcome: asking })).to.equal(true);
    expect(leavesNodeInFlight('aiCall', { failed: false })).to.equal(true);
    expect(leavesNodeInFlight('aiCall', { failed: true })).to.equal(false);
    expect(leavesNodeInFlight('finishAiNode', { failed: false, outcome: { output: 'done' } })).to.equal(false);
    expect(leavesNodeInFlight('prepareAiNode', { failed: false, outcome: { output: null } })).to.equal(false);
    expect(leavesNodeInFlight('executeNode', { failed: true })).to.equal(false);
  });
});
