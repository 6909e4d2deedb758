import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { httpLabels } from '../../lib/metrics.js';
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
    expect(sample(text, 'agentry_http_request_duration_seconds_count', { route: '/public/v1/me', method: 'GET', status: '2xx' })).to.be.at.least(1);
    expect(text).to.not.match(/route="\/public\/v1\/workflows\/\d+/);
    expect(sample(text, 'agentry_runs_total', { trigger_type: 'MANUAL', status: 'started' })).to.be.at.least(1);
    expect(sample(text, 'agentry_runs_total', { trigger_type: 'MANUAL', status: 'failed' })).to.be.at.least(1);
    expect(sample(text, 'agentry_node_duration_seconds_count', { type: 'API', outcome: 'failure' })).to.be.at.least(1);
    expect(text).to.match(/^agentry_outbox_pending_events \d+$/m);
    expect(text).to.match(/^agentry_outbox_parked_events \d+$/m);
  });

  it('keeps HTTP series bounded whatever clients send: 1,000 bad requests on unknown paths add a fixed handful', async () => {
    const { userKey: key, generalKey } = await newAccount();
    const seriesOf = async () =>
      new Set(
        (await (await fetch(`${harness().origin}/metrics`)).text())
          .split('\n')
          .filter((l) => l.startsWith('agentry_http_request_duration_seconds_count{'))
          .map((l) => l.slice(0, l.lastIndexOf(' '))),
      );
    const before = await seriesOf();
    const statuses = new Set<number>();
    const base = harness().baseUrl;
    const requests = Array.from({ length: 1_000 }, (_, i) => async () => {
      const kind = i % 8;
      const res =
        kind === 0
          ? await fetch(`${base}/no-such-thing/${i}?q=${i}`, { headers: { authorization: `Bearer ${key}` } })
          : kind === 1
            ? await fetch(`${harness().origin}/random/${i}/${'x'.repeat(i % 50)}`, { method: ['PURGE', 'PROPFIND', 'LOCK', 'MKCOL'][i % 4] })
            : kind === 2
              ? await fetch(`${base}/workflows/${i}`, { headers: { authorization: `Bearer ${key}` } })
              : kind === 3
                ? await fetch(`${base}/workflows`, {
                    method: 'POST',
                    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                    body: '{"name":',
                  })
                : kind === 4
                  ? await fetch(`${base}/me`, { headers: { authorization: `Bearer wrong-${i}` } })
                  : kind === 5
                    ? await fetch(`${base}/workflows`, {
                        method: 'POST',
                        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/x-unknown' },
                        body: 'x',
                      })
                    : kind === 6
                      ? await fetch(`${base}/api-keys`, { headers: { authorization: `Bearer ${generalKey}` } })
                      : await fetch(`${base}/workflows/${i}`, { method: 'TRACE' as string }).catch(() => undefined);
      if (res) statuses.add(res.status);
      await res?.arrayBuffer();
    });
    for (let i = 0; i < requests.length; i += 50) await Promise.all(requests.slice(i, i + 50).map((r) => r()));
    const added = [...(await seriesOf())].filter((s) => !before.has(s));
    expect(statuses.size, [...statuses].join(',')).to.be.at.least(4);
    // Every label stays in its bounded set, and the distinct routes touched (five patterns plus unmatched) times the
    // methods and classes they answered with is all that can be added.
    for (const series of added)
      expect(series)
        .to.match(/method="(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|other)"/)
        .and.match(/status="(2xx|3xx|4xx|5xx|429|other)"/);
    expect(added.length, added.join('\n')).to.be.at.most(16);
  });

  it("labels a status by its class and 429 on its own, and any method outside HTTP's own as other", () => {
    const labels = new Set<string>();
    for (let status = 100; status < 600; status++) {
      for (const method of ['GET', 'POST', 'BREW', 'get', 'M-SEARCH']) labels.add(JSON.stringify(httpLabels(method, undefined, status)));
    }
    expect(labels.size).to.equal(3 * 6);
    expect(httpLabels('DELETE', '/public/v1/me', 429)).to.deep.equal({ method: 'DELETE', route: '/public/v1/me', status: '429' });
    expect(httpLabels('PATCH', '/public/v1/me', 503)).to.deep.equal({ method: 'PATCH', route: '/public/v1/me', status: '5xx' });
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
