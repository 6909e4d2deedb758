import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SharedBuckets } from '../../api/rate-limit.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('rate limits', function () {
  this.timeout(30_000);

  it('a token bucket grants the burst at once, then the sustained rate, per key, and refills in time', async () => {
    const buckets = new SharedBuckets(harness().orm.em.getKnex()).of(`test-${randomUUID()}`, { perSecond: 4, burst: 3 });
    expect([await buckets.take('a'), await buckets.take('a'), await buckets.take('a')]).to.deep.equal([0, 0, 0]);
    expect(await buckets.take('a'), 'seconds until the next token').to.equal(1);
    expect(await buckets.take('b')).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 300)); // over a quarter of a second: one token back at 4/s
    expect(await buckets.take('a')).to.equal(0);
    expect(await buckets.take('a')).to.be.at.least(1);
  });

  it('holds one limit across API processes: two APIs on one database grant the burst once between them', async () => {
    const a = await newAccount();
    const config = {
      publicBaseUrl: 'http://127.0.0.1',
      bodyLimitBytes: 64 * 1024,
      taskQueue: harness().taskQueue,
      rateLimits: { perKey: { perSecond: 0.01, burst: 10 }, perWebhook: null },
    };
    const apis = [await listen({ config }), await listen({ config })];
    try {
      // 40 requests at once, spread over both processes: 10 granted in all, not 10 each.
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call('GET', '/me', { key: a.userKey, baseUrl: `${apis[i % 2].origin}/public/v1` }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200).length).to.equal(10);
      expect(statuses.filter((s) => s === 429).length).to.equal(30);
    } finally {
      for (const api of apis) api.server.close();
    }
  });

  it('answers 429 with Retry-After once a key or a webhook passes its limit, without charging other keys', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const hook = (await call('POST', '/incoming-webhooks', { key: a.userKey, body: { name: 'Limited', useAuthentication: false } })).body;
    const limited = await listen({
      config: {
        publicBaseUrl: 'http://127.0.0.1',
        bodyLimitBytes: 64 * 1024,
        taskQueue: harness().taskQueue,
        rateLimits: { perKey: { perSecond: 1, burst: 3 }, perWebhook: { perSecond: 1, burst: 2 } },
      },
    });
    try {
      const v1 = `${limited.origin}/public/v1`;
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await call('GET', '/me', { key: a.userKey, baseUrl: v1 })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
      const refused = await call('GET', '/me', { key: a.userKey, baseUrl: v1 });
      expect(refused.body).to.deep.include({ code: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
      expect((await call('GET', '/me', { key: b.userKey, baseUrl: v1 })).status).to.equal(200);

      const calls = [];
      for (let i = 0; i < 3; i += 1) calls.push((await call('POST', `/webhooks/${hook.id}`, { baseUrl: limited.origin, body: { i } })).status);
      expect(calls).to.deep.equal([202, 202, 429]);
    } finally {
      limited.server.close();
    }
  });
});
