/**
 * What the livechat widget reads of an agent without an account key: the agent by its id alone (the widget API is
 * public), its livechat settings and theme, and its identity secret, which is sealed (lib/secret-box.ts) because it
 * must verify `userHash` again and again; and the active conversation of an identified visitor, to resume it.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { Agent } from './agent.entity.js';
import { AgentConfig } from './agent-config.entity.js';
import { Conversation } from './conversation.entity.js';
import { CONFIG_KIND } from './agent-defaults.js';
import { UUID } from './agents.service.js';

/** An agent that is not deleted, of any account, or 404. */
export async function findWidgetAgent(em: EntityManager, agentId: string): Promise<Agent> {
  const agent = UUID.test(agentId) ? await em.findOne(Agent, { id: agentId.toLowerCase(), deletedAt: null }) : null;
  if (!agent) throw new NotFoundError(`Agent ${agentId} not found`);
  return agent;
}

/** What the widget needs to know of the agent: whether livechat serves, on which sites, its theme, feedback or not. */
export interface LivechatView {
  enabled: boolean;
  allowedOrigins: string[];
  theme: Record<string, unknown>;
  collectFeedback: boolean;
}

export async function livechatView(em: EntityManager, agentId: string): Promise<LivechatView> {
  const kinds = [CONFIG_KIND.channel('livechat'), CONFIG_KIND.theme, CONFIG_KIND.setting];
  const configs = await em.find(AgentConfig, { agent: agentId, kind: { $in: kinds } }, { fields: ['kind', 'values'] });
  const values = (kind: string) => configs.find((c) => c.kind === kind)?.values ?? {};
  const livechat = values(CONFIG_KIND.channel('livechat'));
  const tools = values(CONFIG_KIND.setting).systemToolSettings as { collectFeedback?: boolean } | undefined;
  return {
    enabled: livechat.enabled !== false,
    allowedOrigins: Array.isArray(livechat.allowedOrigins) ? (livechat.allowedOrigins as string[]) : [],
    theme: values(CONFIG_KIND.theme),
    collectFeedback: tools?.collectFeedback === true,
  };
}

function box(secrets: SecretBox | null): SecretBox {
  if (!secrets)
    throw new ConflictError('Identity verification needs SETTINGS_ENCRYPTION_KEY on the API: the identity secret is stored sealed with it');
  return secrets;
}

/** A new identity secret for the agent, sealed; answered once, in clear, for the operator to copy to their server. */
export async function rotateIdentitySecret(em: EntityManager, agent: Agent, secrets: SecretBox | null): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  agent.identitySecretSealed = box(secrets).seal(secret);
  await em.flush();
  return secret;
}

/** The agent's identity secret; 409 when none was made yet or the API's key cannot open it. */
export function openIdentitySecret(agent: Agent, secrets: SecretBox | null): string {
  if (!agent.identitySecretSealed)
    throw new ConflictError('This agent has no identity secret yet: POST /agents/{agentId}/identity-secret/rotate makes one');
  const secret = box(secrets).open(agent.identitySecretSealed);
  if (secret === null) throw new ConflictError('The identity secret cannot be opened: the API needs the SETTINGS_ENCRYPTION_KEY it was sealed with');
  return secret;
}

/** The newest active livechat conversation of an identified visitor, which resumes on any device. */
export async function visitorConversation(em: EntityManager, agent: Agent, visitorId: string): Promise<Conversation | null> {
  return em.findOne(Conversation, { agent, visitorId, channel: 'livechat', status: { $ne: 'ENDED' } }, { orderBy: { startedAt: 'desc' } });
}
