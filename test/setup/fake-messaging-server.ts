/**
 * A local HTTP server speaking the messaging product's Cloud API (`POST /{phoneNumberId}/messages`), standing in
 * for the messaging provider: it records each message and answers a message id, or the status a test scripts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  phoneNumberId: string;
  authorization?: string;
  body: Record<string, any>;
}

export class FakeMessagingServer {
  readonly sent: SentMessage[] = [];
  /** Statuses to answer next, in order (then 200 with a message id). */
  failures: { status: number; message: string }[] = [];
  private server?: Server;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const failure = this.failures.shift();
        if (failure)
          return res.writeHead(failure.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: failure.message } }));
        const phoneNumberId = decodeURIComponent(req.url!.split('/')[2] ?? '');
        this.sent.push({ phoneNumberId, authorization: req.headers.authorization, body: JSON.parse(raw) });
        const id = `wamid.${this.sent.length}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id }] }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v21.0`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
