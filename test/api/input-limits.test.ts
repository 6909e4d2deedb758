import { expect } from 'chai';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

/** `{"and":[{"and":[ … 1 … ]}]}` as JSON text (JSON.stringify itself would overflow on the deepest ones). */
const deep = (levels: number): string => `${'{"and":['.repeat(levels)}1${']}'.repeat(levels)}`;
const json = (text: string) => ({ rawBody: text, headers: { 'content-type': 'application/json' } });

describe('structural input limits, for every route', function () {
  this.timeout(30_000);

  it('refuses a NUL character in a query or path parameter with a 400 naming it', async () => {
    const { userKey: key } = await newAccount();
    const res = await call('GET', `/workflows?cursor=${encodeURIComponent('a\u0000b')}`, { key });
    expect(res.status).to.equal(400);
    expect(res.body.details.issues[0]).to.include({ path: 'query.cursor' });
    expect(res.body.details.issues[0].message).to.match(/NUL/);
    expect((await call('GET', `/tables/${encodeURIComponent('x\u0000')}`, { key })).status).to.equal(400);
  });

  it('refuses nesting deeper than 64 levels before validating, in filters, run payloads and webhook calls alike', async () => {
    const { userKey: key } = await newAccount();
    await call('POST', '/tables', { key, body: { name: 'leads', columns: [{ name: 'Name', type: 'string' }] } });
    const filter = await call('POST', '/tables/leads/rows/list', { key, ...json(`{"filter":${deep(5000)}}`) });
    expect(filter.status).to.equal(400);
    expect(filter.body.details.issues[0]).to.include({ code: 'too_deep' });
    expect(filter.body.message).to.match(/at most 64 levels/);
    const shallowEnough = await call('POST', '/tables/leads/rows/list', { key, ...json(`{"filter":${deep(6)}}`) });
    expect(shallowEnough.status).to.equal(400);
    expect(shallowEnough.text).to.match(/filter/);

    const workflow = (await call('POST', '/workflows', { key, body: { name: 'Deep' } })).body.id;
    await call('POST', `/workflows/${workflow}/nodes`, { key, body: { type: 'API', data: { url: 'https://x.test' } } });
    const run = await call('POST', `/workflows/${workflow}/runs?snapshot=draft`, { key, ...json(`{"payload":${deep(5_000)}}`) });
    expect(run.status).to.equal(400);
    expect(run.body.details.issues[0].path).to.match(/^payload/);

    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Deep', useAuthentication: false } })).body;
    const delivery = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, ...json(deep(100)) });
    expect(delivery.status).to.equal(400);
  });

  it('refuses a body that is not JSON (415) or not an object (400) instead of reading it as empty', async () => {
    const { userKey: key } = await newAccount();
    await call('POST', '/tables', { key, body: { name: 'leads', columns: [{ name: 'Name', type: 'string' }] } });
    const text = await call('POST', '/tables/leads/rows', { key, rawBody: 'Name=Ada', headers: { 'content-type': 'text/plain' } });
    expect(text.status).to.equal(415);
    const nullBody = await call('POST', '/tables/leads/rows', { key, rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect(nullBody.status).to.equal(400);
    expect((await call('POST', '/tables/leads/rows/list', { key, body: {} })).body.agentry).to.deep.equal([]);
    expect((await call('POST', '/tables/leads/rows', { key })).status).to.equal(201);
  });

  it('refuses a manual run whose input Temporal could not carry, with 413, before starting it', async () => {
    const { userKey: key } = await newAccount();
    const workflow = (await call('POST', '/workflows', { key, body: { name: 'Big' } })).body.id;
    await call('POST', `/workflows/${workflow}/nodes`, { key, body: { type: 'API', data: { url: 'https://x.test' } } });
    const big = await listen({
      config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 4 * 1024 * 1024, taskQueue: harness().taskQueue, temporalUiUrl: 'http://ui.test' },
    });
    try {
      const res = await call('POST', `/workflows/${workflow}/runs?snapshot=draft`, {
        key,
        baseUrl: `${big.origin}/public/v1`,
        body: { payload: 'x'.repeat(2_500_000) },
      });
      expect(res.status).to.equal(413);
      expect(res.body.message).to.match(/Temporal carries at most 1.9 MB/);
    } finally {
      big.server.close();
    }
    const logs = await call('GET', `/workflows/${workflow}/logs`, { key });
    expect(logs.body.agentry).to.deep.equal([]);
  });
});

describe('body size limits per route family', function () {
  this.timeout(30_000);

  it('holds configuration bodies to 256 KiB (413 naming the limit) while row and run bodies may use the whole process limit', async () => {
    const { userKey: key } = await newAccount();
    const big = await listen({ config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 2 * 1024 * 1024, taskQueue: harness().taskQueue } });
    try {
      const v1 = `${big.origin}/public/v1`;
      await call('POST', '/tables', {
        key,
        baseUrl: v1,
        body: { name: 'notes', columns: [{ name: 'Text', type: 'string', metadata: { format: 'text', extendedField: true } }] },
      });
      const text = 'x'.repeat(300 * 1024);
      const config = await call('POST', '/workflows', { key, baseUrl: v1, body: { name: 'Big', description: text } });
      expect(config.status).to.equal(413);
      expect(config.body.message).to.include(String(256 * 1024));
      expect((await call('POST', '/tables/notes/rows', { key, baseUrl: v1, body: { Text: text } })).status).to.equal(201);
    } finally {
      big.server.close();
    }
  });
});
