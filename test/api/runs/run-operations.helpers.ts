/** What the run-operation tests share: a local HTTP service for API nodes, and a three-API-node workflow that calls it. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { call } from '../../setup/http.js';

/**
 * A local HTTP service: `/<name>` answers `{ "value": "<name>" }` (200), or the status `failing` gives that path;
 * `/slow` never answers (a call given up on is noted in `aborted`). `hits` counts the calls per path, `urls` keeps
 * every URL called, in order.
 */
export interface Service {
  server: Server;
  origin: string;
  hits: Map<string, number>;
  urls: string[];
  aborted: string[];
  failing: Map<string, number>;
  close(): void;
}

export function startService(): Promise<Service> {
  const hits = new Map<string, number>();
  const urls: string[] = [];
  const aborted: string[] = [];
  const failing = new Map<string, number>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://service.test');
    urls.push(req.url ?? '/');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (url.pathname === '/slow') {
      res.on('close', () => aborted.push(url.pathname));
      return;
    }
    res.statusCode = failing.get(url.pathname) ?? 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(res.statusCode < 300 ? { value: url.pathname.slice(1) } : { error: 'down' }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        hits,
        urls,
        aborted,
        failing,
        close: () => server.close().closeAllConnections(),
      }),
    ),
  );
}

/**
 * A published workflow WEBHOOK → API `/<prefix>-1` → API `/<prefix>-2` → API `/<prefix>-3?first={<node 1>.value}`
 * (node 3 reads node 1's output); answers its id and node ids.
 */
export async function threeNodeWorkflow(key: string, origin: string, prefix: string) {
  const id = (await call('POST', '/workflows', { key, body: { name: `Three nodes ${prefix}` } })).body.id as number;
  const add = async (body: unknown) => {
    const res = await call('POST', `/workflows/${id}/nodes`, { key, body });
    expect(res.status, res.text).to.equal(201);
    return res.body.nodes.at(-1).nodeId as string;
  };
  const edge = async (source: string, targetEdge: string) =>
    expect((await call('POST', `/workflows/${id}/edges`, { key, body: { source, handle: 'default', targetEdge } })).status).to.be.oneOf([200, 201]);
  const entry = await add({ type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
  const one = await add({ type: 'API', data: { url: `${origin}/${prefix}-1`, method: 'GET' } });
  const two = await add({ type: 'API', data: { url: `${origin}/${prefix}-2`, method: 'GET' } });
  const three = await add({ type: 'API', data: { url: `${origin}/${prefix}-3?first={${one}.value}`, method: 'GET' } });
  await edge(entry, one);
  await edge(one, two);
  await edge(two, three);
  expect((await call('POST', `/workflows/${id}/publish`, { key })).status).to.be.oneOf([200, 201]);
  return { id, entry, one, two, three };
}

/** Starts a manual run of the live graph; answers its log id. */
export async function startRun(key: string, workflowId: number, payload: unknown = null): Promise<string> {
  const started = await call('POST', `/workflows/${workflowId}/runs`, { key, body: { payload } });
  expect(started.status, started.text).to.equal(202);
  return started.body.id as string;
}
