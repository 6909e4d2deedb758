import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/**
 * One settings document of an agent: its agent setting (`kind` SETTING), its theme (THEME) or one channel's settings
 * (CHANNEL:<channel>). Each is created with its defaults with the agent and replaced by its PUT endpoint; the shape of
 * `values` is the request schema of that endpoint, validated before it is stored.
 */
export class AgentConfig {
  id!: number;
  agent!: Agent;
  kind!: string;
  values: Opt<Record<string, unknown>> = {};
  updatedAt: Opt<Date> = new Date();
}

export const AgentConfigSchema = new EntitySchema<AgentConfig>({
  class: AgentConfig,
  tableName: 'agent_configs',
  uniques: [{ name: 'agent_configs_agent_kind_unique', properties: ['agent', 'kind'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, deleteRule: 'cascade' },
    kind: { type: 'text' },
    values: { type: 'json' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
