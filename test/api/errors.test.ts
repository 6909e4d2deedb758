import { expect } from 'chai';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('error envelope', () => {
  it('answers 404 { code, message } for an unknown route, with or without a key', async () => {
    const acct = await newAccount();
    for (const key of [undefined, acct.userKey]) {
      const res = await call('GET', '/no-such-thing', { key });
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ code: 'not_found', message: 'No route for GET /public/v1/no-such-thing' });
    }
    const outside = await call('GET', '/nowhere', { baseUrl: harness().origin });
    expect(outside.status).to.equal(404);
    expect(outside.body.code).to.equal('not_found');
  });

  it('answers 405 with the envelope for a known path and a wrong method', async () => {
    const acct = await newAccount();
    const res = await call('DELETE', '/me', { key: acct.userKey });
    expect(res.status).to.equal(405);
    expect(res.body.code).to.equal('bad_request');
    expect(res.body.message).to.be.a('string');
  });

  it('answers 400 for malformed JSON, naming the problem', async () => {
    const acct = await newAccount();
    // Refused by the route (after the key and the path's resources), so an unknown route stays 404 or 405.
    const res = await call('POST', '/workflows', { rawBody: '{"name": "x",', key: acct.userKey, baseUrl: harness().baseUrl });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('bad_request');
    expect(res.body.message).to.match(/^Malformed JSON body/);
  });

  it('answers 413 payload_too_large for a body over the limit, and never a 500', async () => {
    const acct = await newAccount();
    const big = JSON.stringify({ data: 'x'.repeat(100 * 1024) });
    const res = await call('POST', '/workflows', { rawBody: big, key: acct.userKey });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.equal({ code: 'payload_too_large', message: 'Request body exceeds the limit of 65536 bytes' });
  });

  it('never sends a stack trace: an unexpected failure is a 500 with a request id only', async () => {
    const logged: unknown[] = [];
    const { server, origin } = await listen({
      logError: (_m, e) => logged.push(e),
      extraRoutes: (api) =>
        api.add({
          method: 'get',
          operationId: 'getExplosion',
          path: '/explode',
          scope: 'public',
          tag: 'Test',
          summary: 'fails unexpectedly',
          responses: { 200: { description: 'never' } },
          handler: () => {
            throw new TypeError('secret internal detail at /srv/app.ts:12');
          },
        }),
    });
    try {
      const res = await call('GET', '/explode', { baseUrl: `${origin}/public/v1` });
      expect(res.status).to.equal(500);
      expect(res.body.code).to.equal('internal');
      expect(res.body.message).to.equal('Internal server error');
      expect(res.body.details.requestId).to.equal(res.headers.get('x-request-id'));
      expect(res.text).to.not.include('secret internal detail').and.not.include('.ts:');
      expect(logged).to.have.length(1);
    } finally {
      server.close();
    }
  });
});
