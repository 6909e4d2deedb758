/**
 * An agent's settings documents (agent setting, theme, channel settings): read, and replaced field by field by their
 * PUT endpoints. Shapes and bounds are the request schemas'; references (models, tools, playbooks, accounts) are
 * checked by the caller's `check` before anything is written.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError, type Issue } from '../../lib/errors.js';
import { AgentConfig } from './agent-config.entity.js';
import type { Agent } from './agent.entity.js';
import { AGENT_CHANNELS, CONFIG_KIND, type AgentChannel } from './agent-defaults.js';

export type ConfigValues = Record<string, unknown>;

/** Checks of the merged values before they are saved (reference validation); empty when valid. */
export type ConfigCheck = (em: EntityManager, accountId: number, values: ConfigValues) => Promise<Issue[]>;

/** A channel agentry knows, or 404. */
export function channelOf(name: string): AgentChannel {
  if (!(AGENT_CHANNELS as readonly string[]).includes(name))
    throw new NotFoundError(`Unknown channel "${name}": one of ${AGENT_CHANNELS.join(', ')}`);
  return name as AgentChannel;
}

async function configOf(em: EntityManager, agent: Agent, kind: string): Promise<AgentConfig> {
  return em.findOneOrFail(AgentConfig, { agent, kind });
}

export async function readConfig(em: EntityManager, agent: Agent, kind: string): Promise<ConfigValues> {
  return (await configOf(em, agent, kind)).values;
}

/** Merges `patch` over the stored values (nested objects one level deep too), checks the result, saves it. */
export async function writeConfig(em: EntityManager, agent: Agent, kind: string, patch: ConfigValues, check?: ConfigCheck): Promise<ConfigValues> {
  const config = await configOf(em, agent, kind);
  const merged: ConfigValues = { ...config.values };
  for (const [key, value] of Object.entries(patch)) {
    const before = merged[key];
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    merged[key] = isObject(value) && isObject(before) ? { ...(before as object), ...(value as object) } : value;
  }
  const issues = check ? await check(em, agent.account.id, merged) : [];
  if (issues.length) throw new BadRequestError(`Invalid ${issues[0]!.path}: ${issues[0]!.message}`, issues);
  config.values = merged;
  await em.flush();
  return merged;
}

/** `GET /agents/{agentId}/settings`: every channel's settings by channel name. */
export async function allChannelSettings(em: EntityManager, agent: Agent): Promise<Record<string, ConfigValues>> {
  const configs = await em.find(AgentConfig, { agent, kind: { $in: AGENT_CHANNELS.map(CONFIG_KIND.channel) } });
  return Object.fromEntries(AGENT_CHANNELS.map((c) => [c, configs.find((x) => x.kind === CONFIG_KIND.channel(c))?.values ?? {}]));
}
