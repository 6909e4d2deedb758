/**
 * `GET /agents/{agentId}/analytics`: conversations started in the date range (total, ended, with feedback, handed to a person), the
 * credits their messages spent, and the same per channel. Counted in SQL over the conversations and messages of
 * the agent (the range is on the conversation's start, whole UTC days).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Agent } from './agent.entity.js';
import { AGENT_CHANNELS } from './agent-defaults.js';

export async function agentAnalytics(em: EntityManager, agent: Agent, startDate: string, endDate: string) {
  const from = `${startDate}T00:00:00Z`;
  const until = new Date(new Date(`${endDate}T00:00:00Z`).getTime() + 86_400_000).toISOString();
  const { rows } = await em.getKnex().raw(
    `select channel, count(*)::int as conversations, count(*) filter (where status = 'ENDED')::int as ended,
            count(*) filter (where feedback is not null)::int as with_feedback, count(*) filter (where handoffs > 0)::int as handed_off,
            coalesce(sum(message_count), 0)::int as messages, coalesce(sum(credits_used), 0)::float as credits
       from conversations where agent_id = ? and started_at >= ? and started_at < ? group by channel`,
    [agent.id, from, until],
  );
  const byChannel = new Map(
    (
      rows as {
        channel: string;
        conversations: number;
        ended: number;
        with_feedback: number;
        handed_off: number;
        messages: number;
        credits: number;
      }[]
    ).map((r) => [r.channel, r]),
  );
  const all = [...byChannel.values()];
  const sum = (key: 'conversations' | 'ended' | 'with_feedback' | 'handed_off' | 'credits') => all.reduce((total, r) => total + r[key], 0);
  return {
    startDate,
    endDate,
    creditsUsed: sum('credits'),
    conversations: { total: sum('conversations'), ended: sum('ended'), withFeedback: sum('with_feedback'), handedOff: sum('handed_off') },
    byChannel: AGENT_CHANNELS.map((channel) => {
      const r = byChannel.get(channel);
      return { channel, conversations: r?.conversations ?? 0, messages: r?.messages ?? 0, credits: r?.credits ?? 0 };
    }),
  };
}
