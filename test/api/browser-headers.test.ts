import type { Server } from 'node:http';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../lib/config.js';
import { harness, listen } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';

describe('browser clients: CORS and security headers', () => {
  const allowed = 'https://app.example.test';
  let api: { server: Server; origin: string };
  let key: string;

  before(async () => {
    const h = harness();
    api = await listen({ config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 65536, taskQueue: h.taskQueue, corsOrigins: [allowed] } });
    key = (await newAccount()).userKey;
  });
  after(() => api.server.close());

  it('lets an allowed origin call the API and read its headers, and answers its preflight', async () => {
    const res = await fetch(`${api.origin}/public/v1/me`, { headers: { origin: allowed, authorization: `Bearer ${key}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(allowed);
    expect(res.headers.get('access-control-expose-headers')).to.include('X-Request-Id').and.include('Retry-After');
    expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    const preflight = await fetch(`${api.origin}/public/v1/workflows`, {
      method: 'OPTIONS',
      headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(allowed);
    expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    expect(preflight.headers.get('access-control-allow-headers')).to.equal('authorization,content-type');
  });

  it('gives other origins, and every origin by default, no CORS headers, so browsers refuse them', async () => {
    const other = await fetch(`${api.origin}/public/v1/me`, { headers: { origin: 'https://evil.example.test', authorization: `Bearer ${key}` } });
    expect(other.headers.get('access-control-allow-origin')).to.equal(null);
    const byDefault = await fetch(`${harness().baseUrl}/me`, { headers: { origin: allowed, authorization: `Bearer ${key}` } });
    expect(byDefault.status).to.equal(200);
    expect(byDefault.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('sends security headers on answers, errors and the reference page', async () => {
    for (const [url, policy] of [
      [`${harness().baseUrl}/me`, "default-src 'none'"],
      [`${harness().baseUrl}/workflows`, "default-src 'none'"],
      [`${harness().origin}/docs`, "default-src 'self'"],
    ] as const) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      expect(res.headers.get('x-content-type-options'), url).to.equal('nosniff');
      expect(res.headers.get('x-frame-options'), url).to.equal('DENY');
      expect(res.headers.get('referrer-policy'), url).to.equal('no-referrer');
      expect(res.headers.get('content-security-policy'), url).to.include(policy).and.include("frame-ancestors 'none'");
    }
    const unauthorized = await fetch(`${harness().baseUrl}/me`);
    expect(unauthorized.status).to.equal(401);
    expect(unauthorized.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('reads CORS_ORIGINS as a list of origins, * for any, and refuses anything else', () => {
    expect(loadConfig({}).corsOrigins).to.deep.equal([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.test, http://localhost:5173/' }).corsOrigins).to.deep.equal([
      'https://a.example.test',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).to.deep.equal(['*']);
    for (const bad of ['ftp://a.example.test', 'https://a.example.test/app', 'a.example.test']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).to.throw(ConfigError, /CORS_ORIGINS/);
    }
  });
});
