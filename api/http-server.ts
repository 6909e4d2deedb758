/**
 * The API's HTTP server with the timeouts a server behind a load balancer needs. Node closes an idle keep-alive
 * connection after 5 s by default, while load balancers and clients keep theirs for 60 s or more: a request sent on
 * a connection the server is closing at that moment fails (ECONNRESET, a 502 from the proxy). So the server keeps idle
 * connections longer than whatever stands in front of it (HTTP_KEEP_ALIVE_TIMEOUT, 65 s by default), and waits for a
 * request's headers a little longer still, as Node requires.
 */
import type { Server } from 'node:http';
import type Koa from 'koa';

export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

export function listenApi(app: Koa, options: { port: number; host: string; keepAliveTimeoutMs?: number }, onListening?: () => void): Server {
  const server = app.listen(options.port, options.host, onListening);
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = server.keepAliveTimeout + 5_000;
  // The whole request may take longer than its headers (uploads): never less than Node's own 5 minutes.
  server.requestTimeout = Math.max(300_000, server.headersTimeout);
  return server;
}
