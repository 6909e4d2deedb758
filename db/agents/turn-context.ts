/**
 * What a conversation turn reads before it runs (`beginTurn`, activities/turn.activity.ts), in one statement: the
 * agent's name, the conversation's identified visitor, the agent's live flows (published, neither paused nor
 * archived, in id order), for a user message the intents the TRIGGER_INTENT nodes of its other live flows name, and
 * for the greeting the welcome message of its theme.
 */
import type { Knex } from '@mikro-orm/postgresql';
import type { IntentPhrases } from '../../lib/intents/intent-match.js';
import { CONFIG_KIND } from './agent-defaults.js';

export interface TurnRows {
  agentName: string;
  contactName: string | null;
  contactEmail: string | null;
  flows: { id: number; isDefault: boolean; liveSnapshotId: string; version: number | null }[];
  /** The intents named by the TRIGGER_INTENT nodes of the live flows but the default one, by id (when asked for). */
  intents: IntentPhrases[];
  /** The theme's welcome message, trimmed (empty when not asked for, not set, or not a string). */
  welcomeMessage: string;
}

/**
 * The rows of conversation `conversationId`'s turn; `withIntents` also reads the intents its live flows are entered
 * by, `withWelcome` the theme's welcome message.
 */
export async function readTurnRows(
  knex: Knex,
  conversationId: string,
  { withIntents, withWelcome }: { withIntents: boolean; withWelcome: boolean },
): Promise<TurnRows> {
  const result = await knex.raw(
    `with live as (
       select f.id, f.is_default, f.live_snapshot_id, (select s.version from graph_snapshots s where s.id = f.live_snapshot_id) as version
         from conversations c join flows f on f.agent_id = c.agent_id
        where c.id = ? and f.deleted_at is null and f.live_snapshot_id is not null and f.status not in ('PAUSED', 'ARCHIVED'))
     select a.name as agent_name, c.contact_name, c.contact_email,
            (select coalesce(json_agg(json_build_object('id', l.id, 'isDefault', l.is_default, 'liveSnapshotId', l.live_snapshot_id, 'version', l.version) order by l.id), '[]')
               from live l) as flows,
            (select coalesce(json_agg(json_build_object('id', i.id, 'name', i.name, 'phrases', i.training_phrases) order by i.id), '[]')
               from intents i
              where ? and a.deleted_at is null and i.agent_id = a.id and i.id in (
                    select trim(x)::int from live l
                      join graph_snapshots s on s.id = l.live_snapshot_id
                      cross join lateral jsonb_array_elements(s.nodes) as n(node)
                      cross join lateral jsonb_array_elements_text(
                        case when jsonb_typeof(n.node -> 'data' -> 'intentIds') = 'array' then n.node -> 'data' -> 'intentIds' else '[]' end) as x
                     where not l.is_default and n.node ->> 'type' = 'TRIGGER_INTENT' and x ~ '^\\s*[0-9]{1,9}\\s*$')) as intents,
            (select case when jsonb_typeof(t."values" -> 'welcomeMessage') = 'string' then t."values" ->> 'welcomeMessage' end
               from agent_configs t where ? and t.agent_id = c.agent_id and t.kind = ?) as welcome
       from conversations c join agents a on a.id = c.agent_id
      where c.id = ?`,
    [conversationId, withIntents, withWelcome, CONFIG_KIND.theme, conversationId],
  );
  type Row = {
    agent_name: string;
    contact_name: string | null;
    contact_email: string | null;
    flows: TurnRows['flows'];
    intents: { id: number; name: string; phrases: unknown }[];
    welcome: string | null;
  };
  const row = result.rows[0] as Row | undefined;
  if (!row) throw new Error(`Conversation ${conversationId} not found`);
  return {
    agentName: row.agent_name,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    flows: row.flows,
    intents: row.intents.map((i) => ({
      id: i.id,
      name: i.name,
      phrases: Array.isArray(i.phrases) ? i.phrases.filter((p): p is string => typeof p === 'string') : [],
    })),
    welcomeMessage: row.welcome?.trim() ?? '',
  };
}
