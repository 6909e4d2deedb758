import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { createOutboundFetch } from '../integrations/outbound/outbound-fetch.js';
import { parseAllowHosts } from '../lib/outbound/address-policy.js';
import { NodeError } from '../lib/errors.js';
import { activityEnvironment, inActivity, nodeInput } from '../test/setup/node-unit.js';
import { waitUntil } from '../test/setup/runs.js';
import { apiNode } from './api.node.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * API node (unit): the request it builds from its data, and how it reads the answer, against a local HTTP server on
 * 127.0.0.1 (allowed by the outbound policy given to it), run as an activity of a MockActivityEnvironment.
 */
describe('API node (unit)', () => {
  let server: Server;
  let origin: string;
  const received: Received[] = [];
  /** What the server answers next: status, content type and body; `hang` never answers. */
  let answer: { status: number; type?: string; body: string } | 'hang' = { status: 200, body: '' };
  const outbound = createOutboundFetch({ allowPrivate: false, allowHosts: parseAllowHosts('127.0.0.1') });

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (answer === 'hang') return;
        res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    received.length = 0;
    answer = { status: 200, body: '' };
  });

  const call = (data: Record<string, unknown>, env?: MockActivityEnvironment) =>
    inActivity({ outbound, httpTimeoutMs: 5_000 }, (context) => apiNode.execute!(nodeInput('API', data), context), env);

  it('sends GET by default with the parameters appended to the query and the headers as given, and no body', async () => {
    answer = { status: 200, type: 'text/plain', body: 'hello' };
    const outcome = await call({
      url: `${origin}/items?fixed=1`,
      parameters: [{ key: 'q', value: 'a b' }, { name: 'n', value: 3 }, { value: 'no key: skipped' }],
      headers: [{ key: 'X-Trace', value: 'abc' }],
      body: { ignored: true },
    });
    expect(outcome).to.deep.equal({ output: 'hello' });
    expect(received).to.have.length(1);
    expect(received[0]).to.deep.include({ method: 'GET', url: '/items?fixed=1&q=a+b&n=3', body: '' });
    expect(received[0]!.headers['x-trace']).to.equal('abc');
    expect(received[0]!.headers['content-type']).to.equal(undefined);
  });

  it('sends a JSON body as application/json, and text as it is under the content type the headers give', async () => {
    await call({ url: `${origin}/orders`, method: 'post', body: { id: 7, tags: ['a'] } });
    expect(received[0]).to.deep.include({ method: 'POST', body: '{"id":7,"tags":["a"]}' });
    expect(received[0]!.headers['content-type']).to.equal('application/json');

    await call({ url: `${origin}/notes`, method: 'PUT', body: 'plain words', headers: [{ key: 'Content-Type', value: 'text/plain' }] });
    expect(received[1]).to.deep.include({ method: 'PUT', body: 'plain words' });
    expect(received[1]!.headers['content-type']).to.equal('text/plain');

    await call({ url: `${origin}/empty`, method: 'POST', body: '' });
    expect(received[2]).to.deep.include({ method: 'POST', body: '' });
    expect(received[2]!.headers['content-type']).to.equal(undefined);
  });

  it('parses a JSON answer, and keeps text that only claims to be JSON as text', async () => {
    answer = { status: 200, type: 'application/json; charset=utf-8', body: '{"ok":true,"items":[1,2]}' };
    expect(await call({ url: `${origin}/json` })).to.deep.equal({ output: { ok: true, items: [1, 2] } });
    answer = { status: 201, type: 'application/json', body: 'not json' };
    expect(await call({ url: `${origin}/json` })).to.deep.equal({ output: 'not json' });
  });

  it('fails for good on a 4xx answer, with its text, and for a retry on a 5xx answer', async () => {
    answer = { status: 404, body: 'no such order' };
    const refused = await call({ url: `${origin}/orders/9?secret=1`, method: 'DELETE' }).catch((e: Error) => e);
    expect(refused).to.be.instanceOf(NodeError);
    expect((refused as NodeError).message).to.equal(`DELETE ${origin}/orders/9 answered 404: no such order`);

    answer = { status: 503, body: 'busy' };
    const retried = await call({ url: `${origin}/busy` }).catch((e: Error) => e);
    expect(retried).to.be.instanceOf(Error).and.not.instanceOf(NodeError);
    expect((retried as Error).message).to.equal(`GET ${origin}/busy answered 503`);
  });

  it('fails for good on a URL that is not one once its variables are filled, before any call', async () => {
    const error = await call({ url: 'not a url' }).catch((e: Error) => e);
    expect(error).to.be.instanceOf(NodeError);
    expect((error as Error).message).to.match(/not a valid URL/);
    expect(received).to.deep.equal([]);
  });

  it('aborts the call in flight when its activity is cancelled', async () => {
    answer = 'hang';
    const env = activityEnvironment();
    const pending = call({ url: `${origin}/slow` }, env).catch((e: Error) => e);
    await waitUntil(
      async () => received.length,
      (n) => n > 0,
      'the call to reach the server',
    );
    env.cancel();
    const error = await pending;
    expect(error).to.be.instanceOf(Error);
    expect(received.map((r) => r.url)).to.deep.equal(['/slow']);
  });
});
