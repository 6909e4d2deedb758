/**
 * Meta's webhook under a flood, as an attacker would send it: unsigned or badly signed deliveries from one address
 * are limited per address and cost at most one HMAC each, whatever the number of connected accounts, while signed
 * deliveries of every account are answered at once; accepted deliveries are limited per account, so one busy account
 * does not make another wait. The counts come from the API's own metrics.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { harness, listen } from '../../setup/harness.js';
import { FakeMetaServer, messagingDelivery, messagingText, sign } from '../../setup/fake-meta-server.js';
import { quiet, undispatchedEvents } from '../../setup/quiet.js';
import { connectedAgent, HOURS_QUESTION, messageId, person, type ConnectedAgent } from './channels.helpers.js';

/** A counter of the API's /metrics (summed over its labels that match `labels`). */
async function counter(origin: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.split(',').every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

const post = (origin: string, path: string, body: string, signature?: string) =>
  fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body,
  });

describe("Meta's webhook under a flood", function () {
  this.timeout(120_000);
  const meta = new FakeMetaServer();
  let a: ConnectedAgent;
  let b: ConnectedAgent;
  let api: { server: Server; origin: string };
  before(async () => {
    await meta.start();
    [a, b] = [await connectedAgent('facebook', meta.baseUrl), await connectedAgent('facebook', meta.baseUrl)];
    // Accepted deliveries: 20 at once per account; refused ones: 10 at once per address (a tenth, at least 10).
    api = await listen({
      config: {
        publicBaseUrl: 'http://127.0.0.1',
        bodyLimitBytes: 64 * 1024,
        taskQueue: harness().taskQueue,
        rateLimits: { perKey: null, perWebhook: { perSecond: 1, burst: 20 } },
      },
    });
  });
  after(async () => {
    // The accepted messages are answered: their replies reach the Send API before it stops.
    await quiet(async () => meta.sent.length, {
      busy: [undispatchedEvents(a.a.account.id), undispatchedEvents(b.a.account.id)],
      what: "the agents' replies",
    });
    api.server.close();
    api.server.closeAllConnections();
    await meta.stop();
  });

  const message = (c: ConnectedAgent) =>
    JSON.stringify(messagingDelivery('page', c.networkId, [messagingText(person(), messageId('m'), HOURS_QUESTION)]));
  const ownPath = async (c: ConnectedAgent) => {
    const [row] = await harness().orm.em.getKnex()('social_accounts').where({ messaging_id: c.networkId }).select('id');
    return `/channels/v1/facebook/webhook/${row.id}`;
  };
  const checks = () => counter(api.origin, 'agentry_channel_webhook_signature_checks_total', 'channel="facebook"');

  it("junk from one address costs at most one HMAC a delivery and never makes the accounts' signed deliveries wait", async () => {
    const shared = '/channels/v1/facebook/webhook';
    const before = await checks();
    const unsigned = await Promise.all(Array.from({ length: 200 }, () => post(api.origin, shared, message(a))));
    const statuses = unsigned.map((r) => r.status);
    expect(new Set(statuses)).to.deep.equal(new Set([401, 429]));
    expect(statuses.filter((s) => s === 429).length, 'over the per-address limit').to.be.at.least(150);
    expect(await checks(), 'an unsigned delivery costs no HMAC').to.equal(before);

    const forged = `sha256=${randomBytes(32).toString('hex')}`;
    const badlySigned = await Promise.all(Array.from({ length: 50 }, () => post(api.origin, shared, message(a), forged)));
    expect(badlySigned.every((r) => r.status === 401 || r.status === 429)).to.equal(true);
    expect(await checks(), 'one HMAC a badly signed delivery, not one per connected account').to.equal(before + 50);

    // From the same address, over its limit of refusals: signed deliveries are answered at once.
    for (const [c, path] of [
      [b, shared],
      [a, shared],
      [a, await ownPath(a)],
    ] as const) {
      const body = message(c);
      const res = await post(api.origin, path, body, sign(c.appSecret, body));
      expect(res.status, `${path} for ${c.networkId}`).to.equal(200);
      expect(await res.json()).to.deep.equal({ events: 1 });
    }
    // A delivery signed by A's app on B's own URL is not B's.
    const intruding = message(a);
    expect((await post(api.origin, await ownPath(b), intruding, sign(a.appSecret, intruding))).status).to.be.oneOf([401, 429]);
  });

  it("limits accepted deliveries per account: one account over its rate leaves another's answered", async () => {
    const status = (c: ConnectedAgent) => {
      const body = JSON.stringify(
        messagingDelivery('page', c.networkId, [{ sender: { id: person() }, delivery: { mids: [messageId('m')], watermark: Date.now() } }]),
      );
      return post(api.origin, '/channels/v1/facebook/webhook', body, sign(c.appSecret, body));
    };
    const busy = await Promise.all(Array.from({ length: 30 }, () => status(a)));
    expect(busy.map((r) => r.status)).to.include(429);
    const limited = busy.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).to.be.at.least(1);
    expect((await status(b)).status, "another account's delivery").to.equal(200);
  });
});
