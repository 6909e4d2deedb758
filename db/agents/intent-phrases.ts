/**
 * The training phrases of an agent's intents, in the shape the local intent matcher (`lib/intents/intent-match.ts`)
 * takes, for the conversation runtime to match user messages against.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { IntentPhrases } from '../../lib/intents/intent-match.js';
import { UUID } from './agents.service.js';

/**
 * The intents of agent `agentId` of account `accountId` (only those of `intentIds` when given), by id, with their
 * training phrases. An agent of another account, a deleted agent, an id that is no UUID, or ids of other agents'
 * intents answer nothing rather than an error: a conversation whose agent went away simply matches no intent.
 */
export async function loadIntentPhrases(em: EntityManager, accountId: number, agentId: string, intentIds?: number[]): Promise<IntentPhrases[]> {
  const ids = intentIds?.filter(Number.isSafeInteger);
  if ((ids && !ids.length) || !UUID.test(agentId)) return [];
  // One plain statement: a conversation turn reads these on every message.
  const result = await em.getKnex().raw(
    `select i.id, i.name, i.training_phrases from intents i join agents a on a.id = i.agent_id
      where a.id = ? and a.account_id = ? and a.deleted_at is null ${ids ? 'and i.id = any(?::int[])' : ''}
      order by i.id`,
    [agentId.toLowerCase(), accountId, ...(ids ? [ids] : [])],
  );
  return result.rows.map((i: { id: number; name: string; training_phrases: unknown }) => ({
    id: i.id,
    name: i.name,
    phrases: Array.isArray(i.training_phrases) ? i.training_phrases.filter((p): p is string => typeof p === 'string') : [],
  }));
}
