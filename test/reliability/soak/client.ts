/**
 * The soak's HTTP client, as a well-behaved client of a platform behind a load balancer: a request that failed at
 * the connection level, or that the load balancer answered 502/503/504 (a backend died), or that was refused with 429
 * (after its Retry-After), is sent again with the same body and Idempotency-Key until `giveUpMs` has passed.
 * "Accepted" means answered 2xx. Every attempt's outcome and every request's latency (first try to final answer)
 * are recorded for the report.
 */

/** One request's outcome: the final status (0: never answered), how long it took in all, how many tries. */
export interface Outcome {
  op: string;
  status: number;
  startedAt: number;
  ms: number;
  tries: number;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

const RETRIED = new Set([429, 502, 503, 504]);

export class SoakClient {
  readonly outcomes: Outcome[] = [];
  /** Attempts that failed and were retried, by cause (`connection`, `502`, ...). */
  readonly retries = new Map<string, number>();

  constructor(
    readonly origin: string,
    private readonly giveUpMs = 120_000,
  ) {}

  /** `op` names the kind of request in the report; `path` is from the origin (`/public/v1/...`, `/webhooks/...`). */
  async send(
    op: string,
    method: string,
    path: string,
    { key, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const startedAt = Date.now();
    const all: Record<string, string> = { ...headers };
    if (key) all.authorization = `Bearer ${key}`;
    if (body !== undefined) all['content-type'] = 'application/json';
    let tries = 0;
    for (;;) {
      tries += 1;
      let cause: string;
      let wait = Math.min(2_000, 100 * 2 ** Math.min(tries, 5));
      try {
        const res = await fetch(`${this.origin}${path}`, {
          method,
          headers: all,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (!RETRIED.has(res.status)) {
          this.outcomes.push({ op, status: res.status, startedAt, ms: Date.now() - startedAt, tries });
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: kept as text
          }
          return { status: res.status, body: parsed, headers: res.headers };
        }
        cause = String(res.status);
        const retryAfter = Number(res.headers.get('retry-after'));
        if (res.status === 429 && retryAfter > 0) wait = retryAfter * 1000;
      } catch (error) {
        cause = (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection';
      }
      this.retries.set(cause, (this.retries.get(cause) ?? 0) + 1);
      if (Date.now() - startedAt + wait > this.giveUpMs) {
        this.outcomes.push({ op, status: 0, startedAt, ms: Date.now() - startedAt, tries });
        return { status: 0, body: { message: `gave up after ${tries} tries (last: ${cause})` }, headers: new Headers() };
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** `send` that must answer one of `statuses` (setup steps): throws with the answer otherwise. */
  async must(method: string, path: string, key: string, body?: unknown, statuses = [200, 201]): Promise<any> {
    const res = await this.send('setup', method, `/public/v1${path}`, { key, body });
    if (!statuses.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}
