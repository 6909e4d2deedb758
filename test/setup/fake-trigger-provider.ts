/** A trigger provider over real HTTP on 127.0.0.1, speaking the protocol of http-trigger-provider.ts. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export const API_KEY = 'tp_test_key';

export interface ProviderCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: any;
}

type Canned = { status: number; body?: unknown };

/** A trigger provider speaking the protocol of http-trigger-provider.ts; records every call. */
export class FakeProvider {
  calls: ProviderCall[] = [];
  /** Subscriptions alive at the provider. */
  live = new Set<string>();
  /** The next answer per route key (`subscribe`, `unsubscribe`, `resources`), used once. */
  next: Partial<Record<'subscribe' | 'unsubscribe' | 'resources', Canned>> = {};
  resources: unknown = {
    items: [
      { id: 'octocat/hello', name: 'hello', hasChildren: true },
      { id: 'octocat/world', name: 'world' },
    ],
  };
  private counter = 0;
  /** Ids are unique across providers, as a real provider's are (several tests share one database). */
  private readonly prefix = randomBytes(4).toString('hex');
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server!.once('listening', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  of(method: string): ProviderCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  reset(): void {
    this.calls = [];
    this.next = {};
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url!, 'http://provider');
    const call: ProviderCall = {
      method: req.method!,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body: raw ? JSON.parse(raw) : undefined,
    };
    this.calls.push(call);
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (call.authorization !== `Bearer ${API_KEY}`) return send(401, { message: 'bad key' });
    const route =
      call.method === 'POST' && call.path === '/v1/trigger-subscriptions'
        ? 'subscribe'
        : call.method === 'DELETE' && call.path.startsWith('/v1/trigger-subscriptions/')
          ? 'unsubscribe'
          : call.method === 'GET' && call.path === '/v1/resources'
            ? 'resources'
            : undefined;
    if (!route) return send(404, { message: 'no such route' });
    const canned = this.next[route];
    if (canned) {
      delete this.next[route];
      return send(canned.status, canned.body);
    }
    if (route === 'subscribe') {
      const id = `sub_${this.prefix}_${++this.counter}`;
      this.live.add(id);
      return send(201, { id });
    }
    if (route === 'unsubscribe') {
      const id = decodeURIComponent(call.path.slice('/v1/trigger-subscriptions/'.length));
      return this.live.delete(id) ? send(204) : send(404, { message: `no subscription ${id}` });
    }
    return send(200, this.resources);
  }
}
