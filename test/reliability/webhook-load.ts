/**
 * Continuous webhook calls for the reliability tests: `callers` concurrent callers post to one incoming webhook until
 * stopped, and every answer is kept with when its call started and ended. A call not answered within `hangMs` is
 * kept with status 0, one that failed (no answer, or one outside the OpenAPI document) with status -1.
 */
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';

export interface Answer {
  status: number;
  startedAt: number;
  endedAt: number;
  /** The event id of a 202. */
  eventId?: string;
  body?: { code?: string; message?: string };
  retryAfter: string | null;
}

export interface WebhookLoad {
  answers: Answer[];
  /** Resolves once `n` answers more than now have a status among `statuses` (202 unless told). */
  until(n: number, statuses?: number[], timeoutMs?: number): Promise<void>;
  /** Stops calling and waits for the calls in flight. */
  stop(): Promise<void>;
}

export function webhookLoad(origin: string, hookId: string, { callers = 8, hangMs = 5_000 } = {}): WebhookLoad {
  const answers: Answer[] = [];
  let stopped = false;
  const post = async (n: number): Promise<Answer> => {
    const startedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), hangMs)));
    const calling = call('POST', `/webhooks/${hookId}`, { baseUrl: origin, body: { n } });
    const res = await Promise.race([calling, hang]).catch((error: Error) => error);
    clearTimeout(timer);
    const endedAt = Date.now();
    if (!res) return { status: 0, startedAt, endedAt, retryAfter: null };
    if (res instanceof Error) return { status: -1, startedAt, endedAt, body: { message: res.message }, retryAfter: null };
    return { status: res.status, startedAt, endedAt, eventId: res.body?.eventId, body: res.body, retryAfter: res.headers.get('retry-after') };
  };
  let sent = 0;
  const running = Promise.all(
    Array.from({ length: callers }, async () => {
      while (!stopped) {
        const answer = await post((sent += 1));
        answers.push(answer);
        // A refused call is retried by its caller a little later, as a well-behaved client would.
        if (answer.status !== 202) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
  );
  return {
    answers,
    async until(n, statuses = [202], timeoutMs = 30_000) {
      const count = () => answers.filter((a) => statuses.includes(a.status)).length;
      const target = count() + n;
      await waitUntil(
        async () => summary(answers),
        () => count() >= target,
        `${n} more answers ${statuses.join('/')}`,
        timeoutMs,
      );
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** How many answers of each status. */
export function summary(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}
