/**
 * Where the time of a message from a messaging network goes, for the channels benchmark: per message, the moments
 * it passed on its way (the webhook's answer, the routing workflow and its activity, the conversation's update
 * accepted and answered, the reply's row, the delivery workflow's signal, the send API's call), read afterwards from
 * the Temporal histories and the database, and printed as medians from the moment the delivery was posted.
 * A moment a run did not go through (a hop the code no longer makes) prints as "—".
 */
import type { Client } from '@temporalio/client';
import type { Knex } from '@mikro-orm/postgresql';
import { percentile } from './bench-processes.js';

/** Wall-clock milliseconds of the moments measured by the benchmark itself. */
export interface MessageTimes {
  wamid: string;
  posted: number;
  answered: number;
  sent: number;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

const ms = (t: HistoryEvent['eventTime']) => (t ? Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6) : NaN);
const history = async (client: Client, workflowId: string): Promise<HistoryEvent[]> => {
  try {
    return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  } catch {
    return [];
  }
};

const PHASES = [
  'webhook answered',
  'routing workflow started',
  'routing activity began',
  'routing activity ended',
  'conversation update accepted',
  'reply row written',
  'delivery workflow signalled',
  'send API called',
  'conversation update answered',
] as const;
type Phase = (typeof PHASES)[number];

/** One line per phase: the median (and p95) time from the delivery's post to it, over the messages that passed it. */
export async function phaseReport(
  client: Client,
  knex: Knex,
  conversationId: string,
  connectionId: number,
  messages: MessageTimes[],
): Promise<string[]> {
  const at = new Map<Phase, number[]>(PHASES.map((p) => [p, []]));
  const conversation = await history(client, `conversation:${conversationId}`);
  const delivery = await history(client, `channel-out:${conversationId}`);
  const signals = delivery
    .filter((e) => e.workflowExecutionSignaledEventAttributes || e.workflowExecutionStartedEventAttributes)
    .map((e) => ms(e.eventTime));
  const replies = (
    await knex.raw(
      `select turn, extract(epoch from created_at) * 1000 as at from conversation_messages where conversation_id = ? and author = 'agent'`,
      [conversationId],
    )
  ).rows as { turn: number; at: string }[];
  const users = (await knex.raw(`select turn, key from conversation_messages where conversation_id = ? and author = 'user'`, [conversationId]))
    .rows as { turn: number; key: string }[];
  for (const m of messages) {
    const add = (phase: Phase, t: number | undefined) => {
      if (t !== undefined && Number.isFinite(t)) at.get(phase)!.push(t - m.posted);
    };
    add('webhook answered', m.answered);
    add('send API called', m.sent);
    const routing = await history(client, `channel-in:messaging:${connectionId}:${m.wamid}`);
    add('routing workflow started', routing.length ? ms(routing[0]!.eventTime) : undefined);
    add('routing activity began', ms(routing.find((e) => e.activityTaskStartedEventAttributes)?.eventTime));
    add('routing activity ended', ms(routing.find((e) => e.activityTaskCompletedEventAttributes)?.eventTime));
    const updateId = `message-${m.wamid}`;
    add(
      'conversation update accepted',
      ms(conversation.find((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId)?.eventTime),
    );
    add(
      'conversation update answered',
      ms(conversation.find((e) => e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === updateId)?.eventTime),
    );
    const turn = users.find((u) => u.key.endsWith(`/m-${m.wamid}`))?.turn;
    const row = turn === undefined ? undefined : Number(replies.find((r) => r.turn === turn)?.at);
    add('reply row written', row);
    if (row !== undefined)
      add(
        'delivery workflow signalled',
        signals.find((t) => t >= row - 2),
      );
  }
  const fmt = (v: number) => `${v.toFixed(0).padStart(5)} ms`;
  return PHASES.map((phase) => {
    const samples = at.get(phase)!;
    return samples.length
      ? `  ${phase.padEnd(30)} p50 ${fmt(percentile(samples, 50))}  p95 ${fmt(percentile(samples, 95))}  (${samples.length})`
      : `  ${phase.padEnd(30)} —`;
  });
}
