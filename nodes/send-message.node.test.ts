import { expect } from 'chai';
import type { Orm } from '../db/orm.js';
import { NodeError } from '../lib/errors.js';
import { nodeContext, nodeInput, runNode } from '../test/setup/node-unit.js';
import { sendMessageNode } from './send-message.node.js';

const CONVERSATION = '6f1c2a7e-3b7d-4a43-9a57-0f7b9f0e2d11';

/**
 * SEND_MESSAGE (unit): which conversation the node addresses and what it refuses before writing anything. Its
 * database is a stand-in that records the lookups and answers `found`; the write itself is the API tests' business.
 */
describe('SEND_MESSAGE node (unit)', () => {
  const lookups: unknown[] = [];
  const send = (data: Record<string, unknown>, triggerPayload?: unknown, found: unknown = null) => {
    lookups.length = 0;
    const em = {
      findOne: async (_entity: unknown, where: unknown) => {
        lookups.push(where);
        return found;
      },
    };
    const orm = { em: { fork: () => em } } as unknown as Orm;
    return runNode(sendMessageNode, nodeInput('SEND_MESSAGE', data, { accountId: 42, triggerPayload }), nodeContext({ orm })).catch((e: Error) => e);
  };

  it('refuses, before any lookup, a node with no conversation of its own or from its trigger', async () => {
    for (const [data, payload] of [
      [{ message: 'hi' }, undefined],
      [{ message: 'hi', conversationId: '  ' }, { conversationId: '' }],
      [{ message: 'hi' }, 'not an object'],
    ] as const) {
      const error = await send(data, payload);
      expect(error).to.be.instanceOf(NodeError);
      expect((error as NodeError).message).to.match(/^SEND_MESSAGE has no conversation/);
      expect(lookups).to.deep.equal([]);
    }
  });

  it("addresses its own conversationId (trimmed) before the trigger's, in the run's account only", async () => {
    const own = await send({ message: 'hi', conversationId: ` ${CONVERSATION} ` }, { conversationId: 'other' });
    expect((own as NodeError).message).to.equal(`Conversation ${CONVERSATION} not found in this account`);
    expect(lookups).to.deep.equal([{ id: CONVERSATION, account: 42 }]);

    const fromTrigger = await send({ message: 'hi' }, { conversationId: CONVERSATION, turns: 3 });
    expect((fromTrigger as NodeError).message).to.equal(`Conversation ${CONVERSATION} not found in this account`);
    expect(lookups).to.deep.equal([{ id: CONVERSATION, account: 42 }]);
  });

  it('answers not found for an id that is no UUID, without looking it up', async () => {
    const error = await send({ message: 'hi', conversationId: 'conv-1' });
    expect(error).to.be.instanceOf(NodeError);
    expect((error as NodeError).message).to.equal('Conversation conv-1 not found in this account');
    expect(lookups).to.deep.equal([]);
  });

  it('refuses an empty or blank static message in a conversation it found', async () => {
    for (const message of [undefined, '', '   \n']) {
      const error = await send({ message, conversationId: CONVERSATION }, undefined, { id: CONVERSATION, turns: 1 });
      expect(error).to.be.instanceOf(NodeError);
      expect((error as NodeError).message).to.equal('SEND_MESSAGE has no message to send');
    }
  });
});
