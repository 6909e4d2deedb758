import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

export const AGENT_RESOURCE_KINDS = ['CUSTOM_TOOL', 'PLAYBOOK', 'KNOWLEDGE_BASE'] as const;

/** Custom tool, playbook or knowledge base. */
export type AgentResourceKind = (typeof AGENT_RESOURCE_KINDS)[number];

/**
 * An account-level resource agents and flows reference by id: a custom tool (`customToolIds`), a playbook
 * (`playbookIds`) or a knowledge base (`knowledgeBaseIds`). Kinds share one table and one id sequence; `values` holds
 * the fields of the kind (validated by its request schema).
 */
export class AgentResource {
  id!: number;
  account!: Account;
  kind!: AgentResourceKind;
  name!: string;
  values: Opt<Record<string, unknown>> = {};
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AgentResourceSchema = new EntitySchema<AgentResource>({
  class: AgentResource,
  tableName: 'agent_resources',
  checks: [{ name: 'agent_resources_kind_check', expression: "kind in ('CUSTOM_TOOL', 'PLAYBOOK', 'KNOWLEDGE_BASE')" }],
  indexes: [{ name: 'agent_resources_account_kind_index', properties: ['account', 'kind'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    kind: { type: 'text' },
    name: { type: 'text' },
    values: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
