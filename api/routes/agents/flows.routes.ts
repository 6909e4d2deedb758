/**
 * `/agents/{agentId}/flows`: an agent's flows and their graphs, whose routes (graph.routes.ts) are those of workflows
 * with the flow's owner (node ids, agent variables, flow rules) and the flow graph rules; publish and snapshots as for
 * workflows (DESIGN.md, Publishing).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { flowGraphRules } from '../../../nodes/registry.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import { flowGraphOwner } from '../../../db/agents/flow-graph-owner.js';
import {
  createFlow,
  deleteFlow,
  findFlow,
  flowView,
  listFlowSnapshots,
  listFlows,
  publishFlow,
  updateFlow,
  type FlowInput,
} from '../../../db/agents/flows.service.js';
import { draftGraph } from '../../../db/automations/snapshots.js';
import type { Flow } from '../../../db/agents/flow.entity.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { FlowCreateSchema, FlowNodeSchema, FlowRefusedNodeSchemas, FlowSchema, FlowUpdateSchema } from '../../schemas/flow.schema.js';
import { registerSharedSchema } from '../../validation.js';
import { page } from '../../schemas/agents.schema.js';
import { graphRoutes } from '../graph.routes.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

const tag = 'Flows';
const base = '/agents/:agentId/flows';
const agentOnly = agentParams();
const params = agentParams(['flowId']);
const nodeParams = agentParams(['flowId'], ['nodeId']);
type FlowId = AgentId & { flowId: number };

async function flowOf(em: EntityManager, accountId: number, { agentId, flowId }: FlowId): Promise<Flow> {
  return findFlow(em, await findAgent(em, accountId, agentId), flowId);
}

export function flowRoutes(api: RouteRegistry): void {
  for (const schema of FlowRefusedNodeSchemas) registerSharedSchema(schema);
  api.add<unknown, { limit: number; cursor?: string }, AgentId>({
    method: 'get',
    operationId: 'listFlows',
    path: base,
    scope: 'any',
    tag,
    summary: 'Flows of the agent (without nodes)',
    params: agentOnly,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [flow], nextCursor }', schema: page(FlowSchema) } },
    handler: async ({ auth, em, params, query }) =>
      paginate(
        (await listFlows(em, await findAgent(em, auth.account.id, params.agentId))).map((f) => flowView(f)),
        query.limit,
        query.cursor,
      ),
  });
  api.add<FlowInput, unknown, AgentId>({
    method: 'post',
    operationId: 'createFlow',
    path: base,
    scope: 'any',
    tag,
    summary: 'Creates a flow with an empty draft graph; its first node is its TRIGGER_INTENT entry',
    params: agentOnly,
    body: FlowCreateSchema,
    status: 201,
    responses: { 201: { description: 'Flow', schema: FlowSchema } },
    lock: agentLock,
    handler: async ({ auth, em, params, body }) => flowView(await createFlow(em, await findAgent(em, auth.account.id, params.agentId), body)),
  });
  api.add<unknown, { includeNodes?: boolean }, FlowId>({
    method: 'get',
    operationId: 'getFlow',
    path: `${base}/:flowId`,
    scope: 'any',
    tag,
    summary: 'A flow; includeNodes=true adds the draft nodes',
    params,
    query: { type: 'object', additionalProperties: false, properties: { includeNodes: { type: 'boolean' } } },
    responses: { 200: { description: 'Flow', schema: FlowSchema } },
    handler: async ({ auth, em, params, query }) => {
      const flow = await flowOf(em, auth.account.id, params);
      return flowView(flow, query.includeNodes ? (await draftGraph(em, flow)).graph : undefined);
    },
  });
  api.add<Partial<FlowInput>, unknown, FlowId>({
    method: 'put',
    operationId: 'updateFlow',
    path: `${base}/:flowId`,
    scope: 'any',
    tag,
    summary: 'Updates name, description or status',
    params,
    body: FlowUpdateSchema,
    responses: { 200: { description: 'Flow', schema: FlowSchema } },
    lock: agentLock,
    handler: async ({ auth, em, params, body }) => flowView(await updateFlow(em, await flowOf(em, auth.account.id, params), body)),
  });
  api.add<unknown, unknown, FlowId>({
    method: 'delete',
    operationId: 'deleteFlow',
    path: `${base}/:flowId`,
    scope: 'any',
    tag,
    summary: 'Soft delete; the default flow cannot be deleted (409)',
    params,
    status: 204,
    responses: { 204: { description: 'Deleted' }, 409: { description: 'The default flow' } },
    lock: agentLock,
    handler: async ({ auth, em, params }) => deleteFlow(em, await flowOf(em, auth.account.id, params)),
  });
  graphRoutes<FlowId, Flow>(api, {
    noun: 'Flow',
    tag,
    path: `${base}/:flowId`,
    params,
    nodeParams,
    lock: agentLock,
    find: flowOf,
    editOf: (flow) => ({ owner: flowGraphOwner(flow), deps: { nodes: flowGraphRules } }),
    versionsOf: (flow) => ({ type: 'FLOW', id: String(flow.id) }),
    node: FlowNodeSchema,
    publish: publishFlow,
    view: (flow) => flowView(flow),
    snapshots: listFlowSnapshots,
    summaries: {
      addNode: 'Adds a node (validated with its references and the flow rules; nothing saved on failure); returns the graph',
      updateNode: 'Updates a node; returns the graph',
      deleteNode: 'Deletes a node and its incoming and outgoing edges; returns the graph',
      publish: 'Promotes the draft to a new immutable live snapshot, which conversations are served from',
    },
    published: { 201: { description: 'Flow with its new liveSnapshotId', schema: FlowSchema } },
  });
}
