/**
 * Real agentry worker processes for the reliability tests: each is `worker/main.ts` (Temporal worker and outbox
 * dispatcher) against its own database and task queue, on the harness's Temporal server, so it can be killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@temporalio/client';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomInt } from 'node:crypto';
import { dropDatabase } from '../../db/database.js';
import type { Orm } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { expect } from 'chai';
import { harness, listen, migratedDatabase, projectRoot, TEST_OUTBOUND_ALLOW_HOSTS } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { nodeArgs } from '../../launcher/node-args.js';

export interface Plant {
  databaseUrl: string;
  orm: Orm;
  taskQueue: string;
  close(): Promise<void>;
}

/** A fresh migrated database (on the test server, or the server of `serverUrl`) and a task queue of its own. */
export async function newPlant(serverUrl?: string): Promise<Plant> {
  const { databaseUrl, orm } = await migratedDatabase(serverUrl);
  // Run ids are made of workflow and event ids (`automation:<id>:event-<id>`), and the plant shares the harness's
  // Temporal namespace: its ids start far from the harness database's, and from other plants' of the same test run,
  // so no run of one is mistaken for another's.
  const start = 1_000_000 * (1 + randomInt(1000));
  await orm.em.getKnex().raw(`select setval('workflows_id_seq', ?), setval('outbox_events_id_seq', ?)`, [start, start]);
  return {
    databaseUrl,
    orm,
    taskQueue: `rel-${randomBytes(4).toString('hex')}`,
    async close() {
      await orm.close();
      await dropDatabase(databaseUrl);
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts `npm run worker`'s entry point and waits until it polls its task queue (on the harness's Temporal unless
 * told), with `env` added to its environment.
 */
export async function startWorker(plant: Plant, temporalAddress = harness().env.address, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, nodeArgs('worker/main.ts'), {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: plant.databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: plant.taskQueue,
      LOG_LEVEL: 'INFO',
      LOG_FORMAT: 'json',
      OUTBOUND_ALLOW_HOSTS: TEST_OUTBOUND_ALLOW_HOSTS,
      // No metrics servers, whatever the environment says: their ports are npm start's (test/setup/free-port.ts).
      WORKER_METRICS_PORT: '0',
      TEMPORAL_SDK_METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in 60 s:\n${output.join('')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${output.join('')}`));
    });
  });
  return { child, output, exited };
}

/** SIGKILL: no graceful shutdown, whatever the worker was doing is lost with it. */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

/** SIGTERM: the worker finishes what it holds and exits. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  await worker.exited;
}

/** A local service whose first call hangs (the worker making it is killed); later calls answer at once. */
export function slowService(): Promise<{ server: Server; origin: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    if (hits === 1) return; // never answered: the worker holding this call is killed
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ attempt: hits, status: 'shipped' }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits })),
  );
}

/** What a reliability suite runs against: a plant, an API in front of it, a slow service, and an account's USER key. */
export interface Rig {
  plant: Plant;
  api: { server: Server; origin: string };
  service: Awaited<ReturnType<typeof slowService>>;
  key: string;
  /** Stops `worker` (when one runs) and everything the rig started. */
  close(worker?: WorkerProcess): Promise<void>;
}

/** A rig on the harness's Temporal server, or on the one `temporal` is a client of; its database on `serverUrl`'s server. */
export async function newRig(temporal?: Client, serverUrl?: string): Promise<Rig> {
  const plant = await newPlant(serverUrl);
  const api = await listen({
    orm: plant.orm,
    config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 65536, taskQueue: plant.taskQueue },
    ...(temporal ? { temporal } : {}),
  });
  const service = await slowService();
  const key = (await bootstrapAccount(plant.orm.em.fork(), 'Reliability', 'ops@example.test')).userKey;
  return {
    plant,
    api,
    service,
    key,
    async close(worker) {
      if (worker) await stopWorker(worker);
      service.server.closeAllConnections();
      service.server.close();
      await new Promise((resolve) => api.server.close(resolve));
      await plant.close();
    },
  };
}

export type Step = { type: string; data: Record<string, unknown> };

/**
 * An ACTIVE workflow of `nodes` in a chain, through the API, with a table named `name` (column Step) that its
 * DYNAMIC_TABLES nodes write to.
 */
export async function tableWorkflow(rig: Pick<Rig, 'api' | 'key'>, name: string, nodes: Step[]): Promise<number> {
  const { key } = rig;
  const baseUrl = `${rig.api.origin}/public/v1`;
  const table = (await call('POST', '/tables', { key, baseUrl, body: { name, columns: [{ name: 'Step', type: 'string' }] } })).body;
  const tableId = table.id ?? (await call('GET', `/tables/${name}`, { key, baseUrl })).body.id;
  const id = (await call('POST', '/workflows', { key, baseUrl, body: { name } })).body.id;
  let previous: string | undefined;
  for (const node of nodes) {
    const body = node.type === 'DYNAMIC_TABLES' ? { ...node, data: { tableId, ...node.data } } : node;
    const res = await call('POST', `/workflows/${id}/nodes`, { key, baseUrl, body });
    expect(res.status, res.text).to.equal(201);
    const nodeId = res.body.nodes.at(-1).nodeId;
    if (previous) await call('POST', `/workflows/${id}/edges`, { key, baseUrl, body: { source: previous, handle: 'default', targetEdge: nodeId } });
    previous = nodeId;
  }
  await call('POST', `/workflows/${id}/publish`, { key, baseUrl });
  expect((await call('PUT', `/workflows/${id}`, { key, baseUrl, body: { status: 'ACTIVE' } })).status).to.equal(200);
  return id;
}

/** An ACTIVE workflow WEBHOOK → `tail` (see `tableWorkflow`) with an incoming webhook of its own. */
export async function hookedWorkflow(rig: Pick<Rig, 'api' | 'key'>, name: string, tail: Step[]): Promise<{ id: number; hookId: string }> {
  const baseUrl = `${rig.api.origin}/public/v1`;
  const hook = (await call('POST', '/incoming-webhooks', { key: rig.key, baseUrl, body: { name, useAuthentication: false } })).body;
  const webhook = { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } };
  return { id: await tableWorkflow(rig, name, [webhook, ...tail]), hookId: hook.id as string };
}
