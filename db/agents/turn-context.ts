/**
 * What a conversation turn reads before it runs (`beginTurn`, activities/turn.activity.ts), in one statement: the
 * agent's name, the conversation's identified visitor, the agent's live flows (published, neither paused nor
 * archived, in id order) and, for the greeting, the welcome message of its theme.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { CONFIG_KIND } from './agent-defaults.js';

export interface TurnRows {
  agentName: string;
  contactName: string | null;
  contactEmail: string | null;
  flows: { id: number; isDefault: boolean; liveSnapshotId: string }[];
  /** The theme's welcome message, trimmed (empty when not asked for, not set, or not a string). */
  welcomeMessage: string;
}

/** The rows of conversation `conversationId`'s turn; `withWelcome` also reads the theme's welcome message. */
export async function readTurnRows(knex: Knex, conversationId: string, withWelcome: boolean): Promise<TurnRows> {
  const result = await knex.raw(
    `select a.name as agent_name, c.contact_name, c.contact_email,
            (select coalesce(json_agg(json_build_object('id', f.id, 'isDefault', f.is_default, 'liveSnapshotId', f.live_snapshot_id) order by f.id), '[]')
               from flows f
              where f.agent_id = c.agent_id and f.deleted_at is null and f.live_snapshot_id is not null
                and f.status not in ('PAUSED', 'ARCHIVED')) as flows,
            (select case when jsonb_typeof(t."values" -> 'welcomeMessage') = 'string' then t."values" ->> 'welcomeMessage' end
               from agent_configs t where ? and t.agent_id = c.agent_id and t.kind = ?) as welcome
       from conversations c join agents a on a.id = c.agent_id
      where c.id = ?`,
    [withWelcome, CONFIG_KIND.theme, conversationId],
  );
  const row = result.rows[0] as
    { agent_name: string; contact_name: string | null; contact_email: string | null; flows: TurnRows['flows']; welcome: string | null } | undefined;
  if (!row) throw new Error(`Conversation ${conversationId} not found`);
  return {
    agentName: row.agent_name,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    flows: row.flows,
    welcomeMessage: row.welcome?.trim() ?? '',
  };
}
