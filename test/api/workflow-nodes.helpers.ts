/** Shared steps of the node-validation API tests: a workflow of a fresh account, refused and accepted nodes. */
import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';

export type Account = Awaited<ReturnType<typeof newAccount>>;

export interface NodeBody {
  type: string;
  alias?: string;
  data?: Record<string, unknown>;
}

/** A refused node: where the issue is, its code, and what its message says. */
export type RefusedCase = [body: NodeBody, path: string, code: string, message: RegExp];

export async function newWorkflow(a: Account, name = 'Nodes'): Promise<number> {
  const res = await call('POST', '/workflows', { key: a.userKey, body: { name } });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

export async function newVariable(a: Account, workflowId: number, name: string, description?: string): Promise<number> {
  const res = await call('POST', `/workflows/${workflowId}/variables`, { key: a.userKey, body: { name, description } });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

export async function graphOf(a: Account, workflowId: number) {
  const res = await call('GET', `/workflows/${workflowId}/graph`, { key: a.userKey });
  expect(res.status, res.text).to.equal(200);
  return res.body as { nodes: { nodeId: string; type: string; data: Record<string, unknown> }[]; edges: unknown[] };
}

/** Adds a node that must be accepted; returns it as saved. */
export async function addNode(a: Account, workflowId: number, body: NodeBody) {
  const res = await call('POST', `/workflows/${workflowId}/nodes`, { key: a.userKey, body });
  expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(201);
  return res.body.nodes.at(-1) as { nodeId: string; data: Record<string, unknown> };
}

/**
 * Sends each refused case (POST a new node, or PUT over `nodeId`), expecting 400 `bad_request` with the issue,
 * and the graph exactly as it was before.
 */
export async function expectRefused(a: Account, workflowId: number, cases: RefusedCase[], nodeId?: string): Promise<void> {
  const before = await graphOf(a, workflowId);
  for (const [body, path, code, message] of cases) {
    const res = nodeId
      ? await call('PUT', `/workflows/${workflowId}/nodes/${nodeId}`, { key: a.userKey, body })
      : await call('POST', `/workflows/${workflowId}/nodes`, { key: a.userKey, body });
    const label = `${JSON.stringify(body)} → ${res.text}`;
    expect(res.status, label).to.equal(400);
    expect(res.body.code, label).to.equal('bad_request');
    const issue = res.body.details.issues.find((i: { path: string }) => i.path === path);
    expect(issue, label).to.not.equal(undefined);
    expect(issue.code, label).to.equal(code);
    expect(issue.message, label).to.match(message);
  }
  expect(await graphOf(a, workflowId)).to.deep.equal(before);
}
