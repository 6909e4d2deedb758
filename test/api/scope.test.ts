import type { Server } from 'node:http';
import { expect } from 'chai';
import { listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

/**
 * The scope check is declared per route (`scope: 'U' | 'any'`) and enforced by the shared route machinery.
 * These routes are declared the same way every product route is, through `extraRoutes`.
 */
describe('key scope: USER vs GENERAL', () => {
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const started = await listen({
      extraRoutes: (api) => {
        for (const scope of ['U', 'any'] as const) {
          api.add<{ name: string }>({
            method: 'post',
            operationId: `create${scope === 'U' ? 'UserScoped' : 'AnyScoped'}Thing`,
            path: `/scope-${scope}`,
            scope,
            tag: 'Test',
            summary: `needs ${scope}`,
            body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
            responses: { 200: { description: 'echo' } },
            handler: ({ auth, body }) => ({ kind: auth.kind, accountId: auth.account.id, name: body.name }),
          });
        }
      },
    });
    server = started.server;
    baseUrl = `${started.origin}/public/v1`;
  });

  after(() => server.close());

  it('accepts a USER key on a U route and on an any route', async () => {
    const acct = await newAccount();
    for (const path of ['/scope-U', '/scope-any']) {
      const res = await call('POST', path, { key: acct.userKey, body: { name: 'n' }, baseUrl });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ kind: 'USER', accountId: acct.account.id, name: 'n' });
    }
  });

  it('refuses a GENERAL key on a U route with 403 forbidden, and accepts it on an any route', async () => {
    const acct = await newAccount();
    const refused = await call('POST', '/scope-U', { key: acct.generalKey, body: { name: 'n' }, baseUrl });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({
      code: 'forbidden',
      message: 'This endpoint requires a USER key; a GENERAL (account) key was used',
    });
    const accepted = await call('POST', '/scope-any', { key: acct.generalKey, body: { name: 'n' }, baseUrl });
    expect(accepted.status).to.equal(200);
    expect(accepted.body.kind).to.equal('GENERAL');
  });

  it('checks the key before the body: no key is 401 even with an invalid body', async () => {
    const res = await call('POST', '/scope-U', { body: { bogus: true }, baseUrl });
    expect(res.status).to.equal(401);
  });

  it('validates the body with the declared schema: 400 bad_request listing each issue', async () => {
    const acct = await newAccount();
    const res = await call('POST', '/scope-any', { key: acct.userKey, body: { name: '', extra: 1 }, baseUrl });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('bad_request');
    const issues = res.body.details.issues as { code: string; path: string; message: string }[];
    expect(issues).to.deep.include({ code: 'unknown_field', path: 'extra', message: 'is not an allowed property' });
    expect(issues.map((i) => i.path)).to.include('name');
  });
});
