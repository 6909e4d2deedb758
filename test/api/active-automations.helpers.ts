/** ACTIVE automations built through the API (a chain of nodes, a live node patched) and the table rows their runs write. */
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';

export interface NodeBody {
  type: string;
  alias?: string;
  data?: Record<string, unknown>;
}

/** Creates a workflow whose nodes run one after the other, publishes it and sets it ACTIVE. */
export async function activeChain(key: string, name: string, nodes: NodeBody[], status = 'ACTIVE'): Promise<{ id: number; nodeIds: string[] }> {
  const id = (await call('POST', '/workflows', { key, body: { name } })).body.id as number;
  const nodeIds: string[] = [];
  for (const body of nodes) {
    const res = await call('POST', `/workflows/${id}/nodes`, { key, body });
    expect(res.status, res.text).to.equal(201);
    nodeIds.push(res.body.nodes.at(-1).nodeId);
  }
  for (let i = 1; i < nodeIds.length; i += 1) {
    const res = await call('POST', `/workflows/${id}/edges`, { key, body: { source: nodeIds[i - 1], handle: 'default', targetEdge: nodeIds[i] } });
    expect(res.status, res.text).to.equal(201);
  }
  expect((await call('POST', `/workflows/${id}/publish`, { key })).status).to.equal(201);
  const res = await call('PUT', `/workflows/${id}`, { key, body: { status } });
  expect(res.status, res.text).to.equal(200);
  return { id, nodeIds };
}

/** Sets fields of a node's data in the workflow's live snapshot directly (for references whose resources, such as agents, do not exist yet). */
export async function patchLiveNode(workflowId: number, nodeId: string, data: Record<string, unknown>): Promise<void> {
  await harness()
    .orm.em.getKnex()
    .raw(
      `update graph_snapshots s set nodes = (
       select jsonb_agg(case when n->>'nodeId' = ? then jsonb_set(n, '{data}', (n->'data') || ?::jsonb) else n end)
         from jsonb_array_elements(s.nodes) n)
      where s.id = (select live_snapshot_id from workflows where id = ?)`,
      [nodeId, JSON.stringify(data), workflowId],
    );
}

export async function rowsOf(key: string, table: string): Promise<{ id: string; data: Record<string, unknown> }[]> {
  const res = await call('POST', `/tables/${table}/rows/list`, { key, body: {} });
  expect(res.status, res.text).to.equal(200);
  return res.body.agentry;
}

export async function newTable(key: string, name: string, columns: string[]): Promise<number> {
  const res = await call('POST', '/tables', { key, body: { name, columns: columns.map((c) => ({ name: c, type: 'string' })) } });
  expect(res.status, res.text).to.be.oneOf([200, 201]);
  return (await call('GET', `/tables/${name}`, { key })).body.id;
}
