import { expect } from 'chai';
import { aiDeps, chatReply, nodeContext, nodeInput, runNode, type AiCallNeeded } from '../test/setup/node-unit.js';
import { conditionalRoutingNode } from './conditional-routing.node.js';

/**
 * CONDITIONAL_ROUTING (unit): plain rules with the steps alone (their context has no AI gateway, nor a database),
 * and the AI's choice from its reply, as a run's finish step reads it.
 */
describe('CONDITIONAL_ROUTING node (unit)', () => {
  const route = (data: Record<string, unknown>) => runNode(conditionalRoutingNode, nodeInput('CONDITIONAL_ROUTING', data), nodeContext());
  const conditions = [
    { id: 'big', expression: '1200 > 1000' },
    { id: 'vip', expression: 'Gold contains gold' },
    { id: 'any', expression: 'yes' },
  ];

  it('takes the first condition that holds, in order, as its handle and output', async () => {
    expect(await route({ useAi: false, conditions })).to.deep.equal({ output: { conditionId: 'big' }, handle: 'big' });
    expect(await route({ useAi: false, conditions: conditions.slice(1) })).to.deep.equal({ output: { conditionId: 'vip' }, handle: 'vip' });
  });

  it('leaves by default, with a null conditionId, when no condition holds', async () => {
    const none = [
      { id: 'a', expression: '9 > 10.5' },
      { id: 'b', expression: '' },
      { id: 'c', expression: 'false' },
      { id: 'd', expression: 'abc not contains B' },
    ];
    expect(await route({ useAi: false, conditions: none })).to.deep.equal({ output: { conditionId: null }, handle: 'default' });
  });

  it('compares numbers as numbers and text case-insensitively', async () => {
    const one = (expression: string) => route({ useAi: false, conditions: [{ id: 'yes', expression }] }).then((o) => o.handle);
    expect(await one('10 > 9')).to.equal('yes'); // as text, "10" < "9"
    expect(await one('"Paris" == paris')).to.equal('yes');
    expect(await one('2.50 == 2.5')).to.equal('yes');
    expect(await one('0')).to.equal('default');
    expect(await one('null')).to.equal('default');
  });

  it('routes without AI when there are no usable conditions, even with useAi unset', async () => {
    expect(await route({})).to.deep.equal({ output: { conditionId: null }, handle: 'default' });
    expect(await route({ conditions: [{ id: '', expression: 'true' }, { expression: 'true' }] })).to.deep.equal({
      output: { conditionId: null },
      handle: 'default',
    });
  });

  it('skips conditions without an id, and treats a missing expression as empty', async () => {
    const data = { useAi: false, conditions: [{ expression: 'true' }, { id: 'blank' }, { id: 'ok', expression: 'true' }] };
    expect(await route(data)).to.deep.equal({ output: { conditionId: 'ok' }, handle: 'ok' });
  });

  it('asks the AI otherwise (the unit context has no AI gateway: the prepare step reaches for it)', async () => {
    const error = await route({ conditions }).catch((e: Error) => e);
    expect((error as Error).message).to.match(/context\.ai\b/);
  });

  it('with AI, asks which condition holds first, numbered, choosing among its ids or null', async () => {
    const input = nodeInput('CONDITIONAL_ROUTING', { conditions });
    const { request } = (await runNode(conditionalRoutingNode, input, nodeContext(aiDeps())).catch((e: Error) => e)) as AiCallNeeded;
    expect(request.call.kind).to.equal('chat');
    if (request.call.kind !== 'chat') return;
    expect(request.call.messages[1]!.content).to.equal('Conditions:\n1. id "big": 1200 > 1000\n2. id "vip": Gold contains gold\n3. id "any": yes');
    expect(request.call.jsonSchema!.name).to.equal('route');
    expect(request.call.jsonSchema!.schema).to.have.nested.property('properties.conditionId.enum').that.deep.equals(['big', 'vip', 'any', null]);
  });

  it("with AI, follows the model's choice, and default when it chooses none", async () => {
    const withReply = (content: string) => {
      const input = nodeInput('CONDITIONAL_ROUTING', { conditions }, { aiReplies: [chatReply(content)] });
      return runNode(conditionalRoutingNode, input, nodeContext(aiDeps()));
    };
    expect(await withReply('{"conditionId":"vip"}')).to.deep.equal({ output: { conditionId: 'vip' }, handle: 'vip', aiCredits: 2 });
    expect(await withReply('{"conditionId":null}')).to.deep.equal({ output: { conditionId: null }, handle: 'default', aiCredits: 2 });
  });

  it('offers one handle per condition id, then default', () => {
    const handles = conditionalRoutingNode.handles as (data: Record<string, unknown>) => string[];
    expect(handles({ conditions })).to.deep.equal(['big', 'vip', 'any', 'default']);
    expect(handles({ conditions: [{ id: '' }, null, { id: 7 }] })).to.deep.equal(['default']);
    expect(handles({})).to.deep.equal(['default']);
  });
});
