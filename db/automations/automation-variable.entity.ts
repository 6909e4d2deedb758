import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Automation } from './automation.entity.js';

/** A declared variable of an automation: a capture target and an interpolation source (`{name}`). */
export class AutomationVariable {
  id!: number;
  automation!: Automation;
  name!: string;
  description: Opt<string> = '';
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AutomationVariableSchema = new EntitySchema<AutomationVariable>({
  class: AutomationVariable,
  tableName: 'workflow_variables',
  uniques: [{ name: 'workflow_variables_name_unique', properties: ['automation', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    automation: { kind: 'm:1', entity: () => Automation, fieldName: 'workflow_id', deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', default: '' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
