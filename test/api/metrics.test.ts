import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { serveMetrics } from '../../worker/metrics-server.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { runResult } from '../setup/runs.js';

/** The value of a sample line `name{labels} value` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics in Prometheus form', function () {
  this.timeout(30_000);

  it('counts requests by route pattern, runs by trigger and outcome, node durations, and reads the outbox backlog', async () => {
    const { userKey: key } = await newAccount();
    await call('GET', '/me', { key });
    const id = (await call('POST', '/workflows', { key, body: { name: 'Measured' } })).body.id;
    await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: 'http://127.0.0.1:9/nowhere' } } });
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: {} });
    await runResult(started.body.id).catch(() => undefined);

    const res = await fetch(`${harness().origin}/metrics`);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await res.text();
    expect(sample(text, 'agentry_http_request_duration_seconds_count', { route: '/public/v1/me', method: 'GET', status: '200' })).to.be.at.least(1);
    expect(text).to.not.match(/route="\/public\/v1\/workflows\/\d+/);
    expect(sample(text, 'agentry_runs_total', { trigger_type: 'MANUAL', status: 'started' })).to.be.at.least(1);
    expect(sample(text, 'agentry_runs_total', { trigger_type: 'MANUAL', status: 'failed' })).to.be.at.least(1);
    expect(sample(text, 'agentry_node_duration_seconds_count', { type: 'API', outcome: 'failure' })).to.be.at.least(1);
    expect(text).to.match(/^agentry_outbox_pending_events \d+$/m);
    expect(text).to.match(/^agentry_outbox_parked_events \d+$/m);
  });

  it("serves the worker's metrics on a port of their own", async () => {
    const server = serveMetrics(0);
    await once(server, 'listening');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(await (await fetch(`${origin}/metrics`)).text()).to.match(/agentry_process_cpu_seconds_total/);
      expect((await fetch(`${origin}/other`)).status).to.equal(404);
    } finally {
      server.close();
    }
  });
});
