/**
 * A turns worker's workflow cache is bounded (WORKER_WORKFLOW_CACHE): conversations stay open for a day, and a worker
 * that cached all of them grew through the soak. Beyond the bound the least recently used conversation is evicted;
 * its next message replays its history and is answered as if it had stayed. A platform of its own (worker, API,
 * database, task queue) on the harness's Temporal, with a cache of 2, talks in 5 conversations through the API.
 */
import { expect } from 'chai';
import { bootstrapAccount } from '../../../db/accounts/accounts.service.js';
import { createWorker, type AgentryWorker } from '../../../worker/create-worker.js';
import { newPlant, type Plant } from '../../reliability/processes.js';
import { harness, listen } from '../../setup/harness.js';
import { call } from '../../setup/http.js';

const FALLBACK = 'Could you say that another way?';

describe('the workflow cache of a turns worker (WORKER_WORKFLOW_CACHE)', function () {
  this.timeout(120_000);
  let plant: Plant;
  let worker: AgentryWorker;
  let running: Promise<void>;
  let api: Awaited<ReturnType<typeof listen>>;
  let key: string;

  before(async () => {
    const h = harness();
    plant = await newPlant();
    worker = await createWorker({
      orm: plant.orm,
      connection: h.env.nativeConnection,
      temporal: h.env.client,
      taskQueue: plant.taskQueue,
      namespace: h.env.namespace ?? 'default',
      queues: ['turns'],
      workflowCache: 2,
      conversationFallbackMessage: FALLBACK,
    });
    running = worker.run();
    api = await listen({ orm: plant.orm, config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue: plant.taskQueue } });
    key = (await bootstrapAccount(plant.orm.em.fork(), 'Cache', 'cache@example.test')).userKey;
  });
  after(async () => {
    api.server.close();
    worker.shutdown();
    await running;
    await plant.close();
  });

  const ask = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, { key, body, baseUrl: `${api.origin}/public/v1` });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.oneOf([200, 201]);
    return res.body;
  };

  it('keeps at most its bound of conversations, and an evicted one answers its next messages in order', async () => {
    const agent = await ask('POST', '/agents', { name: 'Cached' });
    const base = `/agents/${agent.id}`;
    const greet = (await ask('POST', `${base}/flows/${agent.defaultFlowId}/nodes`, { type: 'SAY_AI', data: { message: 'Hello!' } })).nodes.at(
      -1,
    ).nodeId;
    await ask('POST', `${base}/flows/${agent.defaultFlowId}/edges`, { source: 'start_1', handle: 'default', targetEdge: greet });
    await ask('POST', `${base}/flows/${agent.defaultFlowId}/publish`);
    await ask('PUT', `${base}/deployment-status`, { isOffline: false });

    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const started = await ask('POST', `${base}/conversations`, {});
      expect(started.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Hello!']);
      ids.push(started.id);
    }
    const turns = worker.workers[0]!;
    expect(turns.getStatus().numCachedWorkflows, 'conversations cached').to.be.at.most(2);

    // Two rounds over all five: each message finds its conversation evicted by the two before it.
    for (const round of [1, 2]) {
      for (const id of ids) {
        const reply = await ask('POST', `${base}/conversations/${id}/messages`, { text: `round ${round}` });
        expect(reply.messages.map((m: { text: string; turn: number }) => [m.text, m.turn])).to.deep.equal([[FALLBACK, round]]);
        expect(turns.getStatus().numCachedWorkflows).to.be.at.most(2);
      }
    }
    for (const id of ids) {
      const transcript = (await ask('GET', `${base}/conversations/${id}`)).messages as { author: string; text: string }[];
      expect(transcript.map((m) => m.text)).to.deep.equal(['Hello!', 'round 1', FALLBACK, 'round 2', FALLBACK]);
    }
  });
});
