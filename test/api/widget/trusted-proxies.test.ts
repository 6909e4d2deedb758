/**
 * Who the client is, as TRUST_PROXY lets the API believe it: with no trusted proxy (the default) forged
 * X-Forwarded-For, -Proto and -Host headers change nothing (the widget's per-address limit holds, another host is not
 * the API's own origin); behind trusted proxies, the client is the right-most entry no trusted proxy added.
 */
import { expect } from 'chai';
import type { TrustProxy } from '../../../lib/http/trusted-proxies.js';
import { parseTrustProxy } from '../../../lib/http/trusted-proxies.js';
import { harness, listen } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { sessionsPath, shopAgent, widgetCall } from './widget.helpers.js';

/** An API with a per-address limit of 3 session starts (and no refill to speak of) behind `trustProxy`. */
const apiBehind = (trustProxy: TrustProxy) =>
  listen({
    config: {
      publicBaseUrl: 'http://127.0.0.1',
      bodyLimitBytes: 64 * 1024,
      taskQueue: harness().taskQueue,
      trustProxy,
      widgetRateLimits: { perAddress: { perSecond: 0.001, burst: 3 }, perSession: null },
    },
  });

describe('client addresses behind proxies (TRUST_PROXY)', function () {
  this.timeout(60_000);
  let a: Account;
  let agentId: string;
  before(async () => {
    a = await newAccount();
    agentId = (await shopAgent(a)).id;
  });

  const start = (api: string, forwardedFor?: string, extra: Record<string, string> = {}) =>
    widgetCall('POST', sessionsPath(agentId), { api, body: {}, headers: { ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}), ...extra } });

  it('by default ignores X-Forwarded-For: a caller forging a new address per request still meets its limit', async () => {
    const { server, origin } = await apiBehind(parseTrustProxy(undefined));
    try {
      const statuses: number[] = [];
      for (let i = 1; i <= 6; i++) statuses.push((await start(origin, `198.51.100.${i}`)).status);
      expect(statuses).to.deep.equal([201, 201, 201, 429, 429, 429]);
    } finally {
      server.close();
    }
  });

  it('behind one trusted hop, the client is the entry the proxy added, whatever the caller put before it', async () => {
    const { server, origin } = await apiBehind(parseTrustProxy('1'));
    try {
      // The proxy appends the address it saw (203.0.113.7); what the client sent before it is not believed.
      const forged: number[] = [];
      for (let i = 1; i <= 4; i++) forged.push((await start(origin, `10.0.0.${i}, 203.0.113.7`)).status);
      expect(forged).to.deep.equal([201, 201, 201, 429]);
      expect((await start(origin, '203.0.113.8')).status, 'another client has its own bucket').to.equal(201);
    } finally {
      server.close();
    }
  });

  it('trusts proxies by address: loopback peels off, an untrusted hop in the chain is the client', async () => {
    const { server, origin } = await apiBehind(parseTrustProxy('loopback,192.0.2.0/24'));
    try {
      // 192.0.2.10 is a trusted proxy; 203.0.113.9 called it: the entries before are forged.
      const statuses: number[] = [];
      for (let i = 1; i <= 4; i++) statuses.push((await start(origin, `10.9.9.${i}, 203.0.113.9, 192.0.2.10`)).status);
      expect(statuses).to.deep.equal([201, 201, 201, 429]);
    } finally {
      server.close();
    }
  });

  it("believes X-Forwarded-Proto and -Host for the API's own origin only from a trusted proxy", async () => {
    const site = 'https://shop.example';
    const strict = await shopAgent(a);
    await ok('PUT', `${strict.base}/settings/livechat`, a.userKey, { allowedOrigins: [site] }, 200);
    // Limits are the platform's, not a process's: this client (203.0.113.50) has not started sessions before.
    const self = {
      origin: 'https://chat.example.com',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'chat.example.com',
      'x-forwarded-for': '203.0.113.50',
    };
    const startAs = (api: string) => widgetCall('POST', sessionsPath(strict.id), { api, origin: self.origin, body: {}, headers: self });
    const direct = await apiBehind(parseTrustProxy(undefined));
    const proxied = await apiBehind(parseTrustProxy('1'));
    try {
      expect((await startAs(direct.origin)).status, 'forged headers do not make another host our own').to.equal(403);
      expect((await startAs(proxied.origin)).status, "the trusted proxy's host is the full-page chat's own origin").to.equal(201);
    } finally {
      direct.server.close();
      proxied.server.close();
    }
  });
});
