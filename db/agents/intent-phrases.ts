/**
 * The training phrases of an agent's intents, in the shape the local intent matcher (`lib/intents/intent-match.ts`)
 * takes, for the conversation runtime to match user messages against.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { IntentPhrases } from '../../lib/intents/intent-match.js';
import { Intent } from '../entities/index.js';
import { UUID } from './agents.service.js';

/**
 * The intents of agent `agentId` of account `accountId` (only those of `intentIds` when given), by id, with their
 * training phrases. An agent of another account, a deleted agent, an id that is no UUID, or ids of other agents'
 * intents answer nothing rather than an error: a conversation whose agent went away simply matches no intent.
 */
export async function loadIntentPhrases(em: EntityManager, accountId: number, agentId: string, intentIds?: number[]): Promise<IntentPhrases[]> {
  if ((intentIds && !intentIds.length) || !UUID.test(agentId)) return [];
  const intents = await em.find(
    Intent,
    { agent: { id: agentId.toLowerCase(), account: accountId, deletedAt: null }, ...(intentIds ? { id: { $in: intentIds } } : {}) },
    { orderBy: { id: 'asc' }, fields: ['id', 'name', 'trainingPhrases'] },
  );
  return intents.map((i) => ({
    id: i.id,
    name: i.name,
    phrases: Array.isArray(i.trainingPhrases) ? i.trainingPhrases.filter((p): p is string => typeof p === 'string') : [],
  }));
}
