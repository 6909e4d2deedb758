import { expect } from 'chai';
import { TokenBuckets } from '../../api/rate-limit.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('rate limits', function () {
  this.timeout(30_000);

  it('a token bucket grants the burst at once, then the sustained rate, per key', () => {
    let now = 0;
    const buckets = new TokenBuckets({ perSecond: 2, burst: 3 }, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).to.deep.equal([0, 0, 0]);
    expect(buckets.take('a')).to.equal(1);
    expect(buckets.take('b')).to.equal(0);
    now = 500; // half a second: one token back at 2/s
    expect(buckets.take('a')).to.equal(0);
    expect(buckets.take('a')).to.be.at.least(1);
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
