import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/** A declared variable of an agent: a capture target and an interpolation source (`{name}`) of its flows. */
export class AgentVariable {
  id!: number;
  agent!: Agent;
  name!: string;
  description: Opt<string> = '';
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AgentVariableSchema = new EntitySchema<AgentVariable>({
  class: AgentVariable,
  tableName: 'agent_variables',
  uniques: [{ name: 'agent_variables_name_unique', properties: ['agent', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', default: '' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
