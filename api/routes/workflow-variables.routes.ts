/** `/workflows/{workflowId}/variables` (USER keys): a workflow's declared variables and its built-in ones. */
import { findAutomation } from '../../db/automations/automations.service.js';
import { automationVariables } from '../../db/automations/variables.service.js';
import { automationGraphRules } from '../../nodes/registry.js';
import type { RouteRegistry } from '../route-registry.js';
import { WorkflowVariableAllSchema, WorkflowVariablePageSchema, WorkflowVariableSchema } from '../schemas/workflow-responses.schema.js';
import { variableRoutes } from './variables.routes.js';
import { workflowLock } from './workflows.routes.js';

type Id = { workflowId: number };
const id = { type: 'integer', minimum: 1 };

export function workflowVariableRoutes(api: RouteRegistry): void {
  variableRoutes<Id>(api, {
    noun: 'Workflow',
    tag: 'Workflow variables',
    path: '/workflows/:workflowId',
    params: { type: 'object', required: ['workflowId'], properties: { workflowId: id } },
    variableParams: { type: 'object', required: ['workflowId', 'variableId'], properties: { workflowId: id, variableId: id } },
    lock: workflowLock,
    find: async (em, accountId, { workflowId }) => automationVariables(await findAutomation(em, accountId, workflowId)),
    nodes: automationGraphRules,
    schemas: { variable: WorkflowVariableSchema, page: WorkflowVariablePageSchema, all: WorkflowVariableAllSchema },
    summaries: {
      list: 'Declared variables of a workflow',
      create: 'Declares a variable (a capture target, `{name}` in text fields)',
      all: 'Declared variables plus the built-in ones (trigger_payload, one per node)',
      delete: 'Deletes a variable',
    },
    allDescription: '{ agentry: [variable] }: declared and built-in',
  });
}
