import type { Client } from '@temporalio/client';
import type { TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import type { TriggerProvider } from '../../lib/triggers/trigger-provider.js';
import { TemporalAutomationSchedules } from '../../integrations/temporal/automation-schedules.js';
import { nodeFactsOf, automationGraphRules } from '../../nodes/registry.js';
import { staleAgentReferences } from '../../nodes/checks/stale-references.js';
import { automationGraphOwner } from '../../db/automations/automation-graph-owner.js';
import type { Automation } from '../../db/automations/automation.entity.js';
import {
  createAutomation,
  deleteAutomation,
  publishIfActive,
  draftGraph,
  findAutomation,
  listAutomationSnapshots,
  listAutomations,
  publishAutomation,
  updateAutomation,
  automationDetail,
  automationListItem,
  type AutomationInput,
  type AutomationListStatus,
  type AutomationPatch,
} from '../../db/automations/automations.service.js';
import { paginate } from '../pagination.js';
import type { RouteRegistry } from '../route-registry.js';
import {
  NodeDataSchemas,
  NodeSchema,
  NodeTypeSchemas,
  WorkflowCreateSchema,
  WorkflowListQuerySchema,
  WorkflowUpdateSchema,
} from '../schemas/workflow.schema.js';
import { registerSharedSchema } from '../validation.js';
import { WorkflowPageSchema, WorkflowSchema } from '../schemas/workflow-responses.schema.js';
import { workflowSchedules } from '../temporal/schedules.js';
import { graphRoutes } from './graph.routes.js';
import { publisherOf } from './graph-routes-owner.js';

const tag = 'Workflows';
const idParams = { type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'integer', minimum: 1 } } };
const nodeParams = {
  type: 'object',
  required: ['workflowId', 'nodeId'],
  properties: { workflowId: { type: 'integer', minimum: 1 }, nodeId: { type: 'string', minLength: 1, maxLength: 100 } },
};
type Id = { workflowId: number };
/** The lock of a workflow's documents (its settings, graph and variables): see `RouteSpec.lock`. */
export const workflowLock = ({ workflowId }: Id): string => `workflow:${workflowId}`;
const unavailable = { description: 'Temporal did not answer while the schedules had to change; nothing was changed' };

/**
 * `temporal` and `taskQueue`: where the Temporal Schedules of SCHEDULED_TRIGGER nodes are kept and the queue their
 * runs go to; `triggers`: the third-party trigger provider EXTERNAL_TRIGGER nodes subscribe through (undefined: not
 * configured); `deliveries`: the callback URL and secret handed to it with each new subscription.
 */
export function workflowRoutes(
  api: RouteRegistry,
  temporal: Client,
  taskQueue: string,
  triggers?: TriggerProvider,
  deliveries?: TriggerDeliveries,
): void {
  for (const schema of [...NodeDataSchemas, ...NodeTypeSchemas]) registerSharedSchema(schema);
  const schedules = new TemporalAutomationSchedules(temporal, taskQueue, nodeFactsOf);
  api.add<unknown, { status?: AutomationListStatus; limit: number; cursor?: string }>({
    method: 'get',
    operationId: 'listWorkflows',
    path: '/workflows',
    scope: 'any',
    tag,
    summary: 'Workflows; `status` filters ACTIVE, DELETED or DRAFT',
    query: WorkflowListQuerySchema,
    responses: { 200: { description: '{ agentry: [workflow list item], nextCursor }', schema: WorkflowPageSchema } },
    handler: async ({ auth, em, query }) =>
      paginate((await listAutomations(em, auth.account.id, query.status)).map(automationListItem), query.limit, query.cursor),
  });
  api.add<AutomationInput>({
    method: 'post',
    operationId: 'createWorkflow',
    path: '/workflows',
    scope: 'any',
    tag,
    summary: 'Creates a workflow with an empty draft graph',
    body: WorkflowCreateSchema,
    status: 201,
    responses: { 201: { description: 'Workflow', schema: WorkflowSchema } },
    handler: async ({ auth, em, body }) => automationDetail(await createAutomation(em, auth.account.id, body)),
  });
  api.add<unknown, { includeNodes?: boolean }, Id>({
    method: 'get',
    operationId: 'getWorkflow',
    path: '/workflows/:workflowId',
    scope: 'any',
    tag,
    summary:
      'A workflow; includeNodes=true adds the draft nodes; staleReferences lists the ids of deleted agents its nodes still name; ' +
      'schedules (extension) the next times of its SCHEDULED_TRIGGER nodes',
    params: idParams,
    query: { type: 'object', additionalProperties: false, properties: { includeNodes: { type: 'boolean' } } },
    responses: { 200: { description: 'Workflow', schema: WorkflowSchema } },
    handler: async ({ auth, em, params, query }) => {
      const automation = await findAutomation(em, auth.account.id, params.workflowId);
      const { graph } = await draftGraph(em, automation);
      return {
        ...automationDetail(automation, query.includeNodes ? graph : undefined),
        staleReferences: await staleAgentReferences(em, auth.account.id, graph),
        schedules: await workflowSchedules(em, temporal, automation),
      };
    },
  });
  api.add<AutomationPatch, unknown, Id>({
    method: 'put',
    operationId: 'updateWorkflow',
    path: '/workflows/:workflowId',
    scope: 'any',
    tag,
    summary:
      'Updates name, description or status. Status ACTIVE publishes the draft first when it differs from the live graph, ' +
      'and runs each SCHEDULED_TRIGGER node of the live graph on a Temporal Schedule; DRAFT, PAUSED or ARCHIVED pause those schedules',
    params: idParams,
    body: WorkflowUpdateSchema,
    responses: { 200: { description: 'Workflow', schema: WorkflowSchema }, 503: unavailable },
    lock: workflowLock,
    handler: async ({ auth, em, params, body }) =>
      automationDetail(
        await updateAutomation(em, await findAutomation(em, auth.account.id, params.workflowId), body, schedules, {
          publishDraft: true,
          publication: { by: publisherOf(auth), message: 'Published when the workflow was set ACTIVE' },
        }),
      ),
  });
  api.add<unknown, unknown, Id>({
    method: 'delete',
    operationId: 'deleteWorkflow',
    path: '/workflows/:workflowId',
    scope: 'any',
    tag,
    summary: 'Soft delete; the workflow stops receiving events, its schedules are deleted and its third-party trigger subscriptions removed',
    params: idParams,
    status: 204,
    responses: { 204: { description: 'Deleted' }, 503: unavailable },
    lock: workflowLock,
    handler: async ({ auth, em, params }) => deleteAutomation(em, await findAutomation(em, auth.account.id, params.workflowId), schedules, triggers),
  });
  graphRoutes<Id, Automation>(api, {
    noun: 'Workflow',
    tag,
    path: '/workflows/:workflowId',
    params: idParams,
    nodeParams,
    lock: workflowLock,
    find: (em, accountId, { workflowId }) => findAutomation(em, accountId, workflowId),
    // An ACTIVE workflow's edit is published with it (publishIfActive).
    editOf: (automation, publication) => ({
      owner: automationGraphOwner(automation),
      deps: { nodes: automationGraphRules, triggers, deliveries, afterSave: publishIfActive(automation, schedules, publication) },
    }),
    versionsOf: (automation) => ({ type: 'WORKFLOW', id: String(automation.id) }),
    node: NodeSchema,
    publish: (em, automation, publication) => publishAutomation(em, automation, schedules, publication),
    view: (automation) => automationDetail(automation),
    snapshots: listAutomationSnapshots,
    summaries: {
      addNode: 'Adds a node (validated; nothing saved on failure); on an ACTIVE workflow the edit goes live at once; returns the graph',
      updateNode: 'Updates a node (live at once on an ACTIVE workflow); returns the graph',
      deleteNode: 'Deletes a node and its edges (live at once on an ACTIVE workflow); returns the graph',
      publish: "Promotes the draft to a new immutable live snapshot; an ACTIVE workflow's schedules follow the new graph",
    },
    published: { 201: { description: 'Workflow with its new liveSnapshotId', schema: WorkflowSchema }, 503: unavailable },
  });
}
