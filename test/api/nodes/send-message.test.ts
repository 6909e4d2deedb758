/** SEND_MESSAGE in an automation run (its executor's unit test: nodes/send-message.node.test.ts). */
import { expect } from 'chai';
import { newAccount } from '../../setup/http.js';
import { draftWorkflow } from './node-runs.helpers.js';

describe('SEND_MESSAGE nodes in automation runs', function () {
  this.timeout(60_000);

  it('fails SEND_MESSAGE at once when its conversation is not one of the account, or none is given', async () => {
    const a = await newAccount();
    const wf = await draftWorkflow(a.userKey);
    const send = await wf.node('SEND_MESSAGE', { message: 'Thanks for reaching out' });
    const withConversation = await wf.run(send, { conversationId: 'conv_42' });
    expect(withConversation.successful).to.equal(false);
    expect(withConversation.error!.nodeId).to.equal(send);
    expect(withConversation.error!.message).to.equal('Conversation conv_42 not found in this account');
    const without = await wf.run(send, 'hello');
    expect(without.error!.message).to.match(/has no conversation: set data\.conversationId/);
  });
});
