/**
 * The soak's load balancer: a round-robin HTTP proxy in this process in front of the API processes. nginx is not
 * installed on the machines this runs on, and a proxy of our own can say which backend answered and how often it
 * answered 502 (a backend that died), which the report prints. It does what the README asks of a production load
 * balancer: keep-alive connections to the backends (idle for less than the API's HTTP_KEEP_ALIVE_TIMEOUT), the
 * client's address appended to X-Forwarded-For (the API trusts one hop: TRUST_PROXY=1), responses streamed as they
 * come (server-sent events), and 502 when a backend cannot be reached or dies before its answer is complete.
 */
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Proxy {
  origin: string;
  /** Answers by backend port, and 502s (a backend refused or dropped the request). */
  stats: { answered: Map<number, number>; badGateway: number };
  close(): Promise<void>;
}

export async function startProxy(backends: number[]): Promise<Proxy> {
  // Idle connections to a backend are closed after 30 s: before the API's 65-second keep-alive timeout closes them.
  const agent = new Agent({ keepAlive: true, timeout: 30_000 });
  const stats = { answered: new Map<number, number>(), badGateway: 0 };
  let next = 0;
  const server: Server = createServer((req, res) => {
    const port = backends[next++ % backends.length]!;
    const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = request({
      host: '127.0.0.1',
      port,
      method: req.method,
      path: req.url,
      agent,
      headers: { ...req.headers, 'x-forwarded-for': forwarded },
    });
    const badGateway = () => {
      stats.badGateway += 1;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"code":"bad_gateway","message":"backend unavailable"}');
      else res.destroy();
    };
    upstream.on('error', badGateway);
    upstream.on('response', (answer: IncomingMessage) => {
      stats.answered.set(port, (stats.answered.get(port) ?? 0) + 1);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      // A backend killed mid-answer (an open event stream): the client sees its connection cut, as behind nginx.
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
