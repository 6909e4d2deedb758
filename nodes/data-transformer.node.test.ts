import { expect } from 'chai';
import { AiCallNeeded, aiDeps, aiModel, chatReply, nodeContext, nodeInput, runNode } from '../test/setup/node-unit.js';
import { dataTransformerNode } from './data-transformer.node.js';

/**
 * DATA_TRANSFORMER (unit): the steps as a run executes them: the prepare step asks for the AI call it needs
 * (AiCallNeeded carries the call), finish, given the reply, answers the output.
 */
describe('DATA_TRANSFORMER node (unit)', () => {
  const execute = (data: Record<string, unknown>, replies: string[] = []) => {
    const input = nodeInput('DATA_TRANSFORMER', data, { aiReplies: replies.map((content) => chatReply(content)) });
    return runNode(dataTransformerNode, input, nodeContext(aiDeps()));
  };

  it('asks for one chat call on the resolved model: its instructions, then the prompt', async () => {
    const needed = await execute({ prompt: 'Uppercase: ada' }).catch((e: Error) => e);
    expect(needed).to.be.instanceOf(AiCallNeeded);
    const { request } = needed as AiCallNeeded;
    expect(request.callKey).to.equal('automation:1:unit/run#1/ai-1');
    expect(request.model).to.deep.equal({ externalId: 'unit-model', name: 'Unit model', creditsPerMessage: 2 });
    expect(request.call.kind).to.equal('chat');
    const messages = request.call.kind === 'chat' ? request.call.messages : [];
    expect(messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(messages[0]!.content).to.match(/^You transform data as the user asks/);
    expect(messages[1]!.content).to.equal('Uppercase: ada');
  });

  it('sends a prompt that is not text as JSON, and none as empty', async () => {
    const messagesOf = async (prompt: unknown) => {
      const { request } = (await execute({ prompt }).catch((e: AiCallNeeded) => e)) as AiCallNeeded;
      return request.call.kind === 'chat' ? request.call.messages[1]!.content : undefined;
    };
    expect(await messagesOf({ rows: [1, 2] })).to.equal('{"rows":[1,2]}');
    expect(await messagesOf(null)).to.equal('');
  });

  it('answers JSON parsed (a code fence allowed), else the text trimmed, with the call credits', async () => {
    expect(await execute({ prompt: 'p' }, ['```json\n{"name":"ADA"}\n```'])).to.deep.equal({ output: { name: 'ADA' }, aiCredits: 2 });
    expect(await execute({ prompt: 'p' }, ['[1, 2]'])).to.deep.equal({ output: [1, 2], aiCredits: 2 });
    expect(await execute({ prompt: 'p' }, ['  ADA LOVELACE \n'])).to.deep.equal({ output: 'ADA LOVELACE', aiCredits: 2 });
  });

  it('fails for good when the model it resolves cannot serve it', async () => {
    const input = nodeInput('DATA_TRANSFORMER', { prompt: 'p' });
    const error = await runNode(dataTransformerNode, input, nodeContext(aiDeps(aiModel({ deprecated: true })))).catch((e: Error) => e);
    expect((error as Error).name).to.equal('NodeError');
    expect((error as Error).message).to.match(/cannot serve this node/);
  });
});
