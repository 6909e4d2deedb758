/**
 * A local search API speaking SearxNG's JSON format (`GET /search?q=...&format=json` → `{ results: [{ title, url,
 * content }] }`), standing in for WEB_SEARCH_URL: tests set the results it answers and read the queries it got.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class FakeSearchServer {
  /** The queries received (`q`), in order, with their `format`. */
  readonly queries: { q: string; format: string | null }[] = [];
  /** What the next searches answer. */
  results: { title: string; url: string; content: string }[] = [];
  /** A status to answer instead of results (e.g. 503), when set. */
  status = 200;
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://search.local');
      this.queries.push({ q: url.searchParams.get('q') ?? '', format: url.searchParams.get('format') });
      if (this.status !== 200) return void res.writeHead(this.status).end('unavailable');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: url.searchParams.get('q'), results: this.results }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/search`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
