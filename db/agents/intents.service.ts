/**
 * Intents of an agent: a name and training phrases that TRIGGER_INTENT nodes enter flows by. An intent a
 * TRIGGER_INTENT node lists cannot be deleted. Suggested phrases come from the AI gateway (`phrase-generation.service.ts`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../lib/errors.js';
import { Intent } from './intent.entity.js';
import type { Agent } from './agent.entity.js';
import { flowNodesWhere } from './flows.service.js';

export interface IntentInput {
  name: string;
  description?: string;
  trainingPhrases?: string[];
}

/** The AI gateway is not configured or not available (503). */
export class AiGatewayUnavailableError extends ServiceUnavailableError {}

export function intentView(i: Intent) {
  return {
    id: i.id,
    name: i.name,
    description: i.description,
    trainingPhrases: i.trainingPhrases,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

/** Trimmed, without blanks or repeats (case-insensitive), in the order given. */
function cleanPhrases(phrases: string[]): string[] {
  const seen = new Set<string>();
  return phrases.map((p) => p.trim()).filter((p) => p && !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()));
}

export async function listIntents(em: EntityManager, agent: Agent): Promise<Intent[]> {
  return em.find(Intent, { agent }, { orderBy: { id: 'asc' } });
}

export async function findIntent(em: EntityManager, agent: Agent, id: number): Promise<Intent> {
  const intent = await em.findOne(Intent, { id, agent });
  if (!intent) throw new NotFoundError(`Intent ${id} not found`);
  return intent;
}

async function freeName(em: EntityManager, agent: Agent, name: string): Promise<string> {
  const trimmed = name.trim();
  if ((await em.count(Intent, { agent, name: trimmed })) > 0) throw new ConflictError(`An intent named "${trimmed}" already exists`);
  return trimmed;
}

export async function createIntent(em: EntityManager, agent: Agent, input: IntentInput): Promise<Intent> {
  const intent = em.create(Intent, {
    agent,
    name: await freeName(em, agent, input.name),
    description: input.description ?? '',
    trainingPhrases: cleanPhrases(input.trainingPhrases ?? []),
  });
  await em.flush();
  return intent;
}

export async function updateIntent(em: EntityManager, intent: Intent, patch: Partial<IntentInput>): Promise<Intent> {
  if (patch.name !== undefined && patch.name.trim() !== intent.name) intent.name = await freeName(em, intent.agent, patch.name);
  if (patch.description !== undefined) intent.description = patch.description;
  if (patch.trainingPhrases !== undefined) intent.trainingPhrases = cleanPhrases(patch.trainingPhrases);
  await em.flush();
  return intent;
}

export async function deleteIntent(em: EntityManager, intent: Intent): Promise<void> {
  const lists = (ids: unknown) => Array.isArray(ids) && ids.some((id) => Number(id) === intent.id);
  const users = await flowNodesWhere(em, intent.agent, (node) => node.type === 'TRIGGER_INTENT' && lists(node.data.intentIds));
  if (users.length) throw new ConflictError(`Intent "${intent.name}" is used by ${users.join(', ')}: change those nodes first`, { nodes: users });
  em.remove(intent);
  await em.flush();
}
