import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { databaseUnavailable } from '../../db/database.js';
import { parseAllowHosts, REFUSE_PRIVATE, type OutboundPolicy } from '../../lib/outbound/address-policy.js';
import { createOutboundFetch, MAX_REDIRECTS, OutboundError, type Resolve } from '../../integrations/outbound/outbound-fetch.js';

interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server on 127.0.0.1: `/redirect?to=<url>&status=<code>` redirects, `/loop` redirects to itself, the rest echoes. */
async function startServer(): Promise<{ server: Server; origin: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to')! }).end();
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, path: req.url, body }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

const LOCAL: OutboundPolicy = { allowPrivate: false, allowHosts: parseAllowHosts('127.0.0.1') };

/** The error a call is refused with (the test fails when the call succeeds or fails otherwise). */
async function refused(call: Promise<unknown>): Promise<OutboundError> {
  const error = await call.then(
    () => new Error('the call was not refused'),
    (e: Error) => e,
  );
  expect(error, error.stack).to.be.instanceOf(OutboundError);
  return error as OutboundError;
}

describe('outbound fetch (the one client for users’ URLs)', () => {
  let a: Awaited<ReturnType<typeof startServer>>;
  let b: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    [a, b] = await Promise.all([startServer(), startServer()]);
  });
  after(() => {
    a.server.close();
    b.server.close();
  });

  it('calls an allowed address and answers a Response with the body and headers', async () => {
    const res = await createOutboundFetch(LOCAL)(`${a.origin}/hello?x=1`, { method: 'POST', body: 'payload', headers: { 'x-one': '1' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(await res.json()).to.deep.equal({ method: 'POST', path: '/hello?x=1', body: 'payload' });
    expect(a.hits.at(-1)!.headers).to.include({ 'x-one': '1', 'content-length': '7', 'user-agent': 'agentry' });
  });

  it('refuses loopback by default, for an address and for a host name resolving to it, before connecting', async () => {
    const before = a.hits.length;
    const strict = createOutboundFetch(REFUSE_PRIVATE);
    const literal = await refused(strict(`${a.origin}/x`));
    expect(literal.type).to.equal('OutboundAddressRefused');
    expect(literal.message).to.equal(
      `The call to ${a.origin} was refused: 127.0.0.1, a loopback address; the outbound address policy refuses private addresses unless the operator allows them: set OUTBOUND_ALLOW_PRIVATE=true, or add the host or its address to OUTBOUND_ALLOW_HOSTS, on the worker`,
    );
    const port = new URL(a.origin).port;
    expect((await refused(strict(`http://localhost:${port}/x`))).message).to.match(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect((await refused(strict(`http://[::ffff:127.0.0.1]:${port}/x`))).message).to.match(/::ffff:7f00:1, a loopback address/);
    expect(a.hits.length).to.equal(before);
  });

  it('checks every address a name resolves to, on every connection, so a rebinding answer is refused', async () => {
    const answers = [[{ address: '127.0.0.1', family: 4 }], [{ address: '169.254.169.254', family: 4 }]];
    const rebinding: Resolve = async () => answers.shift() ?? [];
    const policy: OutboundPolicy = { allowPrivate: true, allowHosts: [] };
    const call = createOutboundFetch(policy, rebinding);
    const port = new URL(a.origin).port;
    // First answer: an allowed address, connected to. Second (another connection): the metadata address, refused.
    expect((await call(`http://rebind.test:${port}/first`, { headers: { connection: 'close' } })).status).to.equal(200);
    expect((await refused(call(`http://rebind.test:${port}/second`))).message).to.include(
      'rebind.test resolves to 169.254.169.254, a cloud metadata address; the outbound address policy never calls',
    );
    const mixed: Resolve = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    expect((await refused(createOutboundFetch(LOCAL, mixed)(`http://mixed.test:${port}/`))).message).to.include(
      '10.0.0.1, a private network address',
    );
  });

  it('follows redirects by hand, checking each hop: a redirect to a private or metadata address is refused', async () => {
    const call = createOutboundFetch(LOCAL);
    const hop = (to: string, status = 302) => `${a.origin}/redirect?to=${encodeURIComponent(to)}&status=${status}`;
    const followed = await call(hop(`${b.origin}/landed`), { headers: { authorization: 'Bearer secret' } });
    expect(await followed.json()).to.include({ path: '/landed' });
    expect(b.hits.at(-1)!.headers.authorization, 'credentials stay with their origin').to.equal(undefined);
    for (const target of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:1/']) {
      const error = await refused(call(hop(target)));
      expect(error.message, target).to.match(/was refused: .*(private network|metadata|loopback) address/);
    }
  });

  it('turns a POST into a GET after 303, keeps it after 307, and stops after MAX_REDIRECTS', async () => {
    const call = createOutboundFetch(LOCAL);
    const see = await call(`${a.origin}/redirect?to=/after&status=303`, { method: 'POST', body: 'x' });
    expect(await see.json()).to.deep.equal({ method: 'GET', path: '/after', body: '' });
    const keep = await call(`${a.origin}/redirect?to=/after&status=307`, { method: 'POST', body: 'x' });
    expect(await keep.json()).to.deep.equal({ method: 'POST', path: '/after', body: 'x' });
    const before = a.hits.length;
    const error = await refused(call(`${a.origin}/loop`));
    expect(error.type).to.equal('TooManyRedirects');
    expect(a.hits.length - before).to.equal(MAX_REDIRECTS + 1);
  });

  it('fails a network error transiently, without the code that would read as a PostgreSQL outage', async () => {
    const error = (await createOutboundFetch(LOCAL)('http://127.0.0.1:9/nowhere').catch((e: Error) => e)) as Error;
    expect(error).to.not.be.instanceOf(OutboundError);
    expect(error.message).to.match(/^The call to http:\/\/127\.0\.0\.1:9 failed: connect ECONNREFUSED/);
    expect(databaseUnavailable(error)).to.equal(false);
  });

  it('calls only http and https URLs', async () => {
    expect((await refused(createOutboundFetch(LOCAL)('file:///etc/passwd'))).type).to.equal('UnsupportedProtocol');
    const viaRedirect = await refused(createOutboundFetch(LOCAL)(`${a.origin}/redirect?to=${encodeURIComponent('ftp://127.0.0.1/x')}`));
    expect(viaRedirect.type).to.equal('UnsupportedProtocol');
  });
});
