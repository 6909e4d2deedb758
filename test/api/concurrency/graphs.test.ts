/**
 * Concurrent graph edits of flows and workflows: 8 writers adding nodes, edges or changing different nodes at once,
 * then every acknowledged edit is in the draft graph. Before the document locks, 8 × 201 kept 1–2 nodes.
 */
import { expect } from 'chai';
import { newAccount } from '../../setup/http.js';
import { newAgent, ok, type Account } from '../agents/agent-calls.helpers.js';
import { allAtOnce, range, read } from './parallel-writes.helpers.js';

type Graph = {
  nodes: { nodeId: string; alias: string; type: string; data: Record<string, unknown> }[];
  edges: { source: string; targetEdge: string }[];
};

describe('concurrent writes: graphs', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('keeps 8 nodes added to a flow at once, then 8 edges added at once, then 8 nodes changed at once', async () => {
    const agent = await newAgent(a, 'Graph');
    const base = `/agents/${agent.id}/flows/${agent.defaultFlowId}`;
    const added = await allAtOnce(
      a.userKey,
      range(8).map((i) => ({ method: 'POST', path: `${base}/nodes`, body: { type: 'SAY_AI', alias: `say ${i}`, data: { message: `Line ${i}` } } })),
    );
    const graph = await read<Graph>(a.userKey, `${base}/graph`);
    const says = graph.nodes.filter((n) => n.type === 'SAY_AI');
    expect(says.map((n) => n.alias).sort()).to.deep.equal(range(8).map((i) => `say ${i}`));
    expect(added.map((res) => res.body.nodes.length)).to.include(9); // the last writer saw every node

    // A chain start → say 0 → say 1 → … written by 8 writers at once, each from a different node.
    const chain = ['start_1', ...range(8).map((i) => says.find((n) => n.alias === `say ${i}`)!.nodeId)];
    await allAtOnce(
      a.userKey,
      range(8).map((i) => ({ method: 'POST', path: `${base}/edges`, body: { source: chain[i], handle: 'default', targetEdge: chain[i + 1] } })),
    );
    const edges = (await read<Graph>(a.userKey, `${base}/graph`)).edges.map((e) => `${e.source}>${e.targetEdge}`);
    expect(edges.sort()).to.deep.equal(
      range(8)
        .map((i) => `${chain[i]}>${chain[i + 1]}`)
        .sort(),
    );

    await allAtOnce(
      a.userKey,
      says.map((n, i) => ({ method: 'PUT', path: `${base}/nodes/${n.nodeId}`, body: { type: 'SAY_AI', data: { message: `Changed ${i}` } } })),
    );
    const changed = await read<Graph>(a.userKey, `${base}/graph`);
    for (const [i, n] of says.entries()) expect(changed.nodes.find((x) => x.nodeId === n.nodeId)!.data.message).to.equal(`Changed ${i}`);
    expect(changed.edges).to.have.length(8);
  });

  it('keeps 8 nodes added to a workflow at once, 4 edges from different nodes and 8 changes of different nodes', async () => {
    const workflow = await ok('POST', '/workflows', a.userKey, { name: 'Concurrent graph' });
    const base = `/workflows/${workflow.id}`;
    await allAtOnce(
      a.userKey,
      range(8).map((i) => ({
        method: 'POST',
        path: `${base}/nodes`,
        body: { type: 'DATA_TRANSFORMER', alias: `shape ${i}`, data: { prompt: `p${i}` } },
      })),
    );
    const nodes = (await read<Graph>(a.userKey, `${base}/graph`)).nodes;
    expect(nodes.map((n) => n.alias).sort()).to.deep.equal(range(8).map((i) => `shape ${i}`));
    await allAtOnce(
      a.userKey,
      range(4).map((i) => ({
        method: 'POST',
        path: `${base}/edges`,
        body: { source: nodes[2 * i]!.nodeId, handle: 'default', targetEdge: nodes[2 * i + 1]!.nodeId },
      })),
    );
    await allAtOnce(
      a.userKey,
      nodes.map((n, i) => ({
        method: 'PUT',
        path: `${base}/nodes/${n.nodeId}`,
        body: { type: 'DATA_TRANSFORMER', data: { prompt: `changed ${i}` } },
      })),
    );
    const graph = await read<Graph>(a.userKey, `${base}/graph`);
    expect(graph.edges).to.have.length(4);
    for (const [i, n] of nodes.entries()) expect(graph.nodes.find((x) => x.nodeId === n.nodeId)!.data.prompt).to.equal(`changed ${i}`);
  });

  it('publishes and edits a workflow at once: the live snapshot is a graph the draft had, and no edit is lost', async () => {
    const workflow = await ok('POST', '/workflows', a.userKey, { name: 'Publish race' });
    const base = `/workflows/${workflow.id}`;
    await allAtOnce(a.userKey, [
      ...range(6).map((i) => ({ method: 'POST', path: `${base}/nodes`, body: { type: 'DATA_TRANSFORMER', alias: `n${i}`, data: { prompt: 'x' } } })),
      { method: 'POST', path: `${base}/publish` },
      { method: 'POST', path: `${base}/publish` },
    ]);
    expect((await read<Graph>(a.userKey, `${base}/graph`)).nodes).to.have.length(6);
    const snapshots = (await read(a.userKey, `${base}/snapshots`)).agentry as { kind: string; nodeCount: number }[];
    expect(snapshots.filter((s) => s.kind === 'LIVE')).to.have.length(2);
  });
});
