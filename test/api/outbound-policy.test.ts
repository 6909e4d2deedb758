/**
 * The outbound address policy seen through the API: API nodes saved with URLs of the platform's own network are
 * accepted, and their runs fail at once (no retry) naming the policy and the variable to change. Besides the
 * harness's platform (private addresses refused, 127.0.0.1 allowed), two platforms of other policies run in-process,
 * each a worker, an outbox dispatcher and an API on a database and task queue of its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { REFUSE_PRIVATE, type OutboundPolicy } from '../../lib/outbound/address-policy.js';
import { createWorker } from '../../worker/create-worker.js';
import { OutboxDispatcher } from '../../worker/outbox-dispatcher.js';
import { newPlant } from '../reliability/processes.js';
import { recordedActivities } from '../setup/activity-history.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { runResult } from '../setup/runs.js';

/** A platform whose worker calls users' URLs under `outbound`, and the USER key of an account on it. */
async function platformWith(outbound: OutboundPolicy) {
  const h = harness();
  const plant = await newPlant();
  const { orm, taskQueue, databaseUrl } = plant;
  const worker = await createWorker({
    orm,
    connection: h.env.nativeConnection,
    temporal: h.env.client,
    taskQueue,
    namespace: h.env.namespace ?? 'default',
    queues: ['runs'],
    outbound,
  });
  const running = worker.run();
  const dispatcher = new OutboxDispatcher({ orm, temporal: h.env.client, taskQueue, databaseUrl, pollIntervalMs: 500 });
  dispatcher.start();
  const api = await listen({ orm, config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue } });
  const { userKey } = await bootstrapAccount(orm.em.fork(), 'Outbound', 'ops@example.test');
  return {
    baseUrl: `${api.origin}/public/v1`,
    key: userKey,
    async stop() {
      api.server.close();
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await plant.close();
    },
  };
}

type Platform = Awaited<ReturnType<typeof platformWith>>;

describe('outbound address policy of API nodes (through the API and Temporal)', function () {
  this.timeout(60_000);
  let service: { server: Server; origin: string; hits: string[] };
  let refusePrivate: Platform;
  let allowPrivate: Platform;

  before(async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url!);
      const to = new URL(req.url!, 'http://x').searchParams.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"reached":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
    [refusePrivate, allowPrivate] = await Promise.all([platformWith(REFUSE_PRIVATE), platformWith({ allowPrivate: true, allowHosts: [] })]);
  });
  after(async () => {
    service.server.close();
    await Promise.all([refusePrivate.stop(), allowPrivate.stop()]);
  });

  /** Saves a workflow with one API node calling `url` (accepted: the check is at call time) and runs it as a draft. */
  async function runApiNode(url: string, platform?: Platform) {
    const baseUrl = platform?.baseUrl ?? harness().baseUrl;
    const key = platform?.key ?? (await newAccount()).userKey;
    const id = (await call('POST', '/workflows', { key, baseUrl, body: { name: 'Outbound' } })).body.id;
    const saved = await call('POST', `/workflows/${id}/nodes`, { key, baseUrl, body: { type: 'API', data: { url } } });
    expect(saved.status, saved.text).to.equal(201);
    const node = saved.body.nodes.at(-1).nodeId;
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, baseUrl, body: { entryNodeId: node } });
    expect(started.status, started.text).to.equal(202);
    const result = await runResult(started.body.id);
    const log = await call('GET', `/workflows/${id}/logs/${encodeURIComponent(started.body.id)}`, { key, baseUrl });
    expect(log.status, log.text).to.equal(200);
    const attempts = (await recordedActivities(started.body.id, ['executeNode'])).map((a) => a.attempts);
    return { result, log: log.body, attempts };
  }

  /** Expects the run to have failed on its API node at the first attempt, with an error matching `message`. */
  function expectRefused(run: Awaited<ReturnType<typeof runApiNode>>, message: RegExp) {
    expect(run.result.successful, JSON.stringify(run.result)).to.equal(false);
    expect(run.log.status).to.equal('failed');
    expect(run.log.node_results[0].success).to.equal(false);
    expect(run.log.node_results[0].error).to.match(message);
    expect(run.attempts, 'a refused call is not retried').to.deep.equal([1]);
  }

  it('reaches an allow-listed server (the test worker allows 127.0.0.1)', async () => {
    const run = await runApiNode(`${service.origin}/hello`);
    expect(run.result.successful, JSON.stringify(run.result)).to.equal(true);
    expect(run.log.node_results[0].output).to.deep.equal({ reached: true });
    expect(service.hits).to.include('/hello');
  });

  it('refuses the cloud metadata address even where private addresses are allowed', async () => {
    const run = await runApiNode('http://169.254.169.254/latest/meta-data/iam/security-credentials/', allowPrivate);
    expectRefused(
      run,
      /^The call to http:\/\/169\.254\.169\.254 was refused: 169\.254\.169\.254, a cloud metadata address; the outbound address policy never calls link-local or cloud metadata addresses$/,
    );
    // The same worker does call a private address: only the metadata one is refused.
    expect((await runApiNode(`${service.origin}/private-ok`, allowPrivate)).result.successful).to.equal(true);
  });

  it('refuses a private address by default, naming OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOW_HOSTS', async () => {
    const run = await runApiNode('http://10.0.0.7:5432/', refusePrivate);
    expectRefused(
      run,
      /^The call to http:\/\/10\.0\.0\.7:5432 was refused: 10\.0\.0\.7, a private network address; .*OUTBOUND_ALLOW_PRIVATE=true.*OUTBOUND_ALLOW_HOSTS/,
    );
    // The harness's worker allows 127.0.0.1 only: another private address stays refused.
    expectRefused(await runApiNode('http://192.168.1.1/admin'), /192\.168\.1\.1, a private network address/);
  });

  it('refuses a host name that resolves to loopback (localhost) by default', async () => {
    const port = new URL(service.origin).port;
    const before = service.hits.length;
    const run = await runApiNode(`http://localhost:${port}/via-name`, refusePrivate);
    expectRefused(run, /localhost resolves to (127\.0\.0\.1|::1), a loopback address; .*OUTBOUND_ALLOW_PRIVATE=true/);
    expect(service.hits.length, 'nothing was sent').to.equal(before);
  });

  it('refuses a redirect from an allowed server to a private or metadata address', async () => {
    for (const [target, message] of [
      ['http://10.1.2.3/internal', /10\.1\.2\.3, a private network address/],
      ['http://169.254.169.254/latest/user-data', /169\.254\.169\.254, a cloud metadata address/],
    ] as const) {
      const before = service.hits.length;
      const run = await runApiNode(`${service.origin}/r?to=${encodeURIComponent(target)}`);
      expectRefused(run, message);
      expect(service.hits.length - before, 'the redirecting server is called once').to.equal(1);
    }
  });
});
