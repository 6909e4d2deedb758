/** Building agents that talk, through the HTTP API: flows of nodes and edges, published, the agent online. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call } from '../../setup/http.js';
import { newAgent, ok, type Account } from './agent-calls.helpers.js';

export interface TalkingAgent {
  id: string;
  defaultFlowId: number;
  base: string;
}

/** An agent, online, whose default flow is START → `greeting` nodes (published). */
export async function talkingAgent(a: Account, greeting: { type: string; data: Record<string, unknown> }[] = []): Promise<TalkingAgent> {
  const agent = await newAgent(a, `Agent ${Math.random().toString(36).slice(2, 8)}`);
  const talking = { ...agent, base: `/agents/${agent.id}` };
  if (greeting.length) await chain(a, talking, agent.defaultFlowId, greeting, 'start_1');
  await publish(a, talking, agent.defaultFlowId);
  await ok('PUT', `${talking.base}/deployment-status`, a.userKey, { isOffline: false }, 200);
  return talking;
}

/** Adds `nodes` to the flow, each linked from the one before (from `after` for the first); answers their ids. */
export async function chain(
  a: Account,
  agent: TalkingAgent,
  flowId: number,
  nodes: { type: string; data: Record<string, unknown> }[],
  after?: string,
) {
  const ids: string[] = [];
  let previous = after;
  for (const body of nodes) {
    const graph = await ok('POST', `${agent.base}/flows/${flowId}/nodes`, a.generalKey, body);
    const nodeId = graph.nodes.at(-1).nodeId as string;
    if (previous) await ok('POST', `${agent.base}/flows/${flowId}/edges`, a.generalKey, { source: previous, handle: 'default', targetEdge: nodeId });
    ids.push(nodeId);
    previous = nodeId;
  }
  return ids;
}

export async function publish(a: Account, agent: TalkingAgent, flowId: number): Promise<void> {
  const res = await call('POST', `${agent.base}/flows/${flowId}/publish`, { key: a.generalKey });
  expect(res.status, res.text).to.be.within(200, 201);
}

/** A published flow entered by `intentIds`: TRIGGER_INTENT → `nodes`. */
export async function intentFlow(
  a: Account,
  agent: TalkingAgent,
  name: string,
  intentIds: number[],
  nodes: { type: string; data: Record<string, unknown> }[],
) {
  const flow = await ok('POST', `${agent.base}/flows`, a.generalKey, { name });
  const ids = await chain(a, agent, flow.id, [{ type: 'TRIGGER_INTENT', data: { intentIds } }, ...nodes]);
  await publish(a, agent, flow.id);
  return { flowId: flow.id as number, nodeIds: ids };
}

export async function intent(a: Account, agent: TalkingAgent, name: string, trainingPhrases: string[]): Promise<number> {
  return (await ok('POST', `${agent.base}/intents`, a.userKey, { name, trainingPhrases })).id;
}

/** Starts a conversation; answers its body (the conversation and the greeting). */
export async function startConversation(a: Account, agent: TalkingAgent) {
  return ok('POST', `${agent.base}/conversations`, a.generalKey, {}, 201);
}

/** Sends a user message; answers the turn (the agent's messages). */
export async function say(a: Account, agent: TalkingAgent, conversationId: string, text: string, messageId?: string) {
  return ok('POST', `${agent.base}/conversations/${conversationId}/messages`, a.generalKey, { text, ...(messageId ? { messageId } : {}) }, 200);
}

export const texts = (turn: { messages: { text: string }[] }) => turn.messages.map((m) => m.text);

/** A service a custom tool calls: answers every order as shipped and records the URLs. */
export async function orderLookup(): Promise<{ server: Server; origin: string; urls: string[] }> {
  const urls: string[] = [];
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls };
}

/**
 * Restarts a conversation's workflow with test-sized timers or run lengths (the channel's idle time is a minute at
 * least, a conversation expires after a day): its state is as after the greeting.
 */
export async function restartConversation(
  started: { id: string; temporalWorkflowId: string },
  a: Account,
  agentId: string,
  extra: Record<string, unknown>,
) {
  const client = harness().env.client;
  await client.workflow.getHandle(started.temporalWorkflowId).terminate('restarted with test settings');
  const input = { accountId: a.account.id, agentId, conversationId: started.id, channel: 'livechat', ...extra };
  return client.workflow.start('conversation', {
    taskQueue: `${harness().taskQueue}-turns`,
    workflowId: started.temporalWorkflowId,
    args: [{ ...input, state: { turns: 0, variables: {}, waiting: null, ended: false, idleFired: false } }],
  });
}
