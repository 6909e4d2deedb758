import { expect } from 'chai';
import type { NodeCheckContext } from './checks/check-context.js';
import type { GraphNode } from '../lib/graph/graph.js';
import { iterationNode } from './iteration.node.js';

/**
 * ITERATION (unit): the interpreter runs the loop itself (workflows/interpreter); what the module decides alone is
 * its handles and the save-time check of what it loops over, run here on a graph in memory.
 */
describe('ITERATION node (unit)', () => {
  const node = (id: string, type: string, data: Record<string, unknown> = {}, alias = id): GraphNode => ({
    nodeId: id,
    alias,
    type,
    position: { positionX: 0, positionY: 0 },
    data: { ...data, type },
    edges: [],
  });
  const lookup = node('lookup-1', 'DYNAMIC_TABLES', {}, 'orders');
  const ctx = (loop: GraphNode): NodeCheckContext => ({
    em: undefined as unknown as NodeCheckContext['em'],
    accountId: 1,
    graph: { nodes: [lookup, loop], edges: [] },
    variables: new Set(['trigger_payload', 'customers']),
    declared: [],
    variablesOf: 'workflow',
  });
  const check = async (data: Record<string, unknown>) => {
    const loop = node('loop-1', 'ITERATION', data);
    return (await Promise.all(iterationNode.checks!.map((c) => c(loop, ctx(loop))))).flat();
  };

  it('leaves by body per item, then completed, or by empty', () => {
    expect(iterationNode.handles).to.deep.equal(['body', 'completed', 'empty']);
    expect(iterationNode.execute).to.equal(undefined);
  });

  it('loops over a declared or built-in variable, or a node by id or alias, with a path after it', async () => {
    for (const variableName of ['customers', 'trigger_payload.items', 'lookup-1', 'orders', 'orders.rows[0]'])
      expect(await check({ variableName }), variableName).to.deep.equal([]);
  });

  it('refuses a missing name, and one that names nothing', async () => {
    expect(await check({})).to.deep.equal([{ code: 'required', path: 'data.variableName', message: 'is required' }]);
    expect(await check({ variableName: '' })).to.have.nested.property('[0].code', 'required');
    expect(await check({ variableName: 'customer' })).to.deep.equal([
      { code: 'not_found', path: 'data.variableName', message: 'no variable or node named "customer"' },
    ]);
    expect(await check({ variableName: 'orderz.rows' })).to.have.nested.property('[0].code', 'not_found');
  });
});
