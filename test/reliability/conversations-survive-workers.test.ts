import type { Server } from 'node:http';
import { expect } from 'chai';
import { call } from '../setup/http.js';
import { eventually } from '../setup/runs.js';
import { killWorker, newRig, startWorker, type Plant, type Rig, type WorkerProcess } from './processes.js';

describe('conversation turns survive worker crashes (real worker processes)', function () {
  this.timeout(180_000);
  let plant: Plant;
  let api: { server: Server; origin: string };
  let service: Rig['service'];
  let key: string;
  let worker: WorkerProcess | undefined;

  let rig: Rig;
  before(async () => {
    rig = await newRig();
    ({ plant, api, service, key } = rig);
  });
  after(() => rig.close(worker));

  const v1 = (method: string, path: string, body?: unknown) => call(method, path, { key, baseUrl: `${api.origin}/public/v1`, body });
  async function created(method: string, path: string, body?: unknown) {
    const res = await v1(method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 201);
    return res.body;
  }
  async function chain(base: string, flowId: number, nodes: object[], after?: string) {
    let previous = after;
    for (const node of nodes) {
      const nodeId = (await created('POST', `${base}/flows/${flowId}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await created('POST', `${base}/flows/${flowId}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await created('POST', `${base}/flows/${flowId}/publish`);
  }

  it('a worker killed in the middle of a turn: a new worker completes the turn once, and no message is said twice', async () => {
    const agent = await created('POST', '/agents', { name: 'Steady' });
    const base = `/agents/${agent.id}`;
    await chain(base, agent.defaultFlowId, [{ type: 'SAY_AI', data: { message: 'Hello!' } }], 'start_1');
    const orders = await created('POST', `${base}/intents`, { name: 'orders', trainingPhrases: ['where is my order'] });
    const flow = await created('POST', `${base}/flows`, { name: 'Orders' });
    await chain(base, flow.id, [
      { type: 'TRIGGER_INTENT', data: { intentIds: [orders.id] } },
      { type: 'SAY_AI', data: { message: 'Let me check.' } },
      { type: 'API', data: { url: `${service.origin}/orders/7` } },
      { type: 'SAY_AI', data: { message: 'It has shipped.' } },
    ]);
    await created('PUT', `${base}/deployment-status`, { isOffline: false });
    worker = await startWorker(plant);
    const conversation = await created('POST', `${base}/conversations`, {});

    const answer = v1('POST', `${base}/conversations/${conversation.id}/messages`, { text: 'Where is my order?' });
    await eventually(async () => (service.hits() >= 1 ? true : undefined), 'the API node to call the service', 60_000);
    await killWorker(worker);
    worker = await startWorker(plant);
    const turn = await answer;
    expect(turn.status, turn.text).to.equal(200);
    expect(turn.body.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Let me check.', 'It has shipped.']);
    expect(service.hits()).to.equal(2); // the call in flight when the worker died was made again, once
    const transcript = await created('GET', `${base}/conversations/${conversation.id}`);
    expect(transcript.messages.map((m: { author: string; text: string }) => `${m.author}: ${m.text}`)).to.deep.equal([
      'agent: Hello!',
      'user: Where is my order?',
      'agent: Let me check.',
      'agent: It has shipped.',
    ]);
    // The conversation goes on after the crash.
    const next = await created('POST', `${base}/conversations/${conversation.id}/messages`, { text: 'where is my order' });
    expect(next.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Let me check.', 'It has shipped.']);
  });
});
