/** The worker's `/metrics` endpoint (Prometheus text), on a port of its own: the worker serves no other HTTP. */
import { createServer, type Server } from 'node:http';
import { registry } from '../lib/metrics.js';

export function serveMetrics(port: number, host = '127.0.0.1'): Server {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(500).end(error.message),
    );
  });
  server.listen(port, host);
  return server;
}
