import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/** An intent of an agent: training phrases a user message is matched against; TRIGGER_INTENT nodes enter flows by it. */
export class Intent {
  id!: number;
  agent!: Agent;
  name!: string;
  description: Opt<string> = '';
  trainingPhrases: Opt<string[]> = [];
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const IntentSchema = new EntitySchema<Intent>({
  class: Intent,
  tableName: 'intents',
  uniques: [{ name: 'intents_name_unique', properties: ['agent', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', default: '' },
    trainingPhrases: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
