/** The activities of the plain-Temporal baselines: nothing, or the I/O of the webhook-shaped run and of a turn. */
import pg from 'pg';

export function baselineActivities(pool: pg.Pool) {
  return {
    async noop(): Promise<void> {},
    async httpGet(url: string): Promise<unknown> {
      return (await fetch(url)).json();
    },
    async insertRow(payload: unknown, answer: unknown): Promise<void> {
      await pool.query('insert into baseline_events (payload, answer) values ($1, $2)', [JSON.stringify(payload), JSON.stringify(answer)]);
    },
    async insertMessage(role: string, text: string, turn: number): Promise<void> {
      await pool.query('insert into baseline_messages (role, text, turn) values ($1, $2, $3)', [role, text, turn]);
    },
    async httpPost(url: string, body: unknown): Promise<void> {
      await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).arrayBuffer();
    },
  };
}

export type BaselineActivities = ReturnType<typeof baselineActivities>;
