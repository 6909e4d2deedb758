/**
 * Suggested training phrases for an intent, from the AI gateway on the account's default TEXT model (its credits
 * charged like any AI call). Without a configured provider, or when the provider fails, the answer is 503 with
 * the reason; phrases are never invented locally.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AI_NOT_CONFIGURED, AiGateway } from './ai-gateway.js';
import type { AiProvider } from './ai-provider.js';
import { resolveModel } from './model-resolution.js';
import { AppError, BadRequestError, NodeError } from '../../lib/errors.js';
import type { Agent } from '../../db/agents/agent.entity.js';
import { AiGatewayUnavailableError, findIntent } from '../../db/agents/intents.service.js';

export interface PhraseRequest {
  intentId?: number;
  name?: string;
  description?: string;
  trainingPhrases?: string[];
  count?: number;
}

const SYSTEM =
  'You write training phrases for an intent of a conversational agent: short, varied messages a customer might send ' +
  'that mean this intent. Answer a JSON object { "phrases": [...] } with exactly the number of phrases asked, none repeating the examples.';

export async function generatePhrases(
  em: EntityManager,
  provider: AiProvider | null,
  agent: Agent,
  request: PhraseRequest,
): Promise<{ phrases: string[] }> {
  if (!provider) throw new AiGatewayUnavailableError(`${AI_NOT_CONFIGURED}. Until then, write the phrases yourself.`);
  const intent = request.intentId !== undefined ? await findIntent(em, agent, request.intentId) : null;
  const name = request.name ?? intent?.name;
  if (!name) throw new BadRequestError('name or intentId is required', 'name');
  const examples = request.trainingPhrases ?? intent?.trainingPhrases ?? [];
  const count = request.count ?? 10;
  const description = request.description ?? intent?.description ?? '';
  const session = new AiGateway(provider).direct(em, agent.account.id);
  const schema = {
    type: 'object',
    properties: { phrases: { type: 'array', items: { type: 'string', minLength: 1 } } },
    required: ['phrases'],
    additionalProperties: false,
  };
  const ask = `Intent: ${name}${description ? `\nMeaning: ${description}` : ''}\nExamples: ${JSON.stringify(examples)}\nPhrases wanted: ${count}`;
  try {
    const model = await resolveModel(em, {}, 'TEXT');
    const answer = await session.structured<{ phrases: string[] }>(
      model,
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: ask },
      ],
      'phrases',
      schema,
    );
    const known = new Set(examples.map((p) => p.trim().toLowerCase()));
    const fresh = [...new Set(answer.phrases.map((p) => p.trim()))].filter((p) => p && !known.has(p.toLowerCase()));
    return { phrases: fresh.slice(0, count) };
  } catch (error) {
    if (error instanceof NodeError && error.type === 'InsufficientCredits') throw new AppError(402, 'forbidden', error.message);
    // A provider that refuses or fails is the gateway being unavailable to this request, not the caller's mistake.
    throw new AiGatewayUnavailableError(`Generating phrases failed: ${(error as Error).message}`);
  }
}
