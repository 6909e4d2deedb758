/**
 * A client (or a load balancer) that keeps a connection open between requests can send the next one on it after a
 * pause longer than Node's 5-second default without the API closing it under the request (ECONNRESET, a proxy's 502).
 */
import { request, Agent } from 'node:http';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';

/** One GET on `agent`: the status and whether it went on a connection used before. */
function get(agent: Agent, url: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('keep-alive connections', function () {
  this.timeout(30_000);

  it('answers a request on a connection that sat idle for 6 s (HTTP_KEEP_ALIVE_TIMEOUT, 65 s by default)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const url = `${harness().origin}/public/v1/openapi.json`;
    try {
      expect(await get(agent, url)).to.deep.equal({ status: 200, reused: false });
      // The idle time is what this test is about: longer than Node's default keepAliveTimeout of 5 s.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await get(agent, url)).to.deep.equal({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});
