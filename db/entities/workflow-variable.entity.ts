import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Workflow } from './workflow.entity.js';

/** A declared variable of a workflow: a capture target and an interpolation source (`{name}`). */
export class WorkflowVariable {
  id!: number;
  workflow!: Workflow;
  name!: string;
  description: Opt<string> = '';
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const WorkflowVariableSchema = new EntitySchema<WorkflowVariable>({
  class: WorkflowVariable,
  tableName: 'workflow_variables',
  uniques: [{ name: 'workflow_variables_name_unique', properties: ['workflow', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    workflow: { kind: 'm:1', entity: () => Workflow, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', default: '' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
