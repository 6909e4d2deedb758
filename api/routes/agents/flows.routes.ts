/**
 * `/agents/{agentId}/flows`: an agent's flows and their graphs, edited through the graph service of workflows with
 * the flow's owner (node ids, agent variables, flow rules) and the flow node catalog; publish and snapshots as for
 * workflows (DESIGN.md, Publishing).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { flowNodeCatalog } from '../../../nodes/registry.js';
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
import {
  addEdge,
  createNode,
  deleteNode,
  removeEdge,
  updateNode,
  type GraphEditDeps,
  type NodeInput,
} from '../../../db/automations/graph.service.js';
import type { GraphOwner } from '../../../db/automations/graph-owner.js';
import { draftGraph } from '../../../db/automations/snapshots.js';
import type { Flow } from '../../../db/entities/index.js';
import type { Graph, GraphEdge } from '../../../lib/graph/graph.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { FlowCreateSchema, FlowNodeSchema, FlowSchema, FlowUpdateSchema, GraphSchema, SnapshotListSchema } from '../../schemas/flow.schema.js';
import { page } from '../../schemas/agents.schema.js';
import { EdgeDeleteSchema, EdgeSchema } from '../../schemas/workflow.schema.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

const tag = 'Flows';
const base = '/agents/:agentId/flows';
const agentOnly = agentParams();
const params = agentParams(['flowId']);
const nodeParams = agentParams(['flowId'], ['nodeId']);
type FlowId = AgentId & { flowId: number };
const graph = { description: '{ nodes, edges }', schema: GraphSchema };

/** The draft graph as `GET .../graph` answers it (the ETag reader of every graph edit). */
const readGraph = async ({ auth, em, params }: RouteInput<unknown, unknown, FlowId>) =>
  (await draftGraph(em, await flowOf(em, auth.account.id, params))).graph;

async function flowOf(em: EntityManager, accountId: number, { agentId, flowId }: FlowId): Promise<Flow> {
  return findFlow(em, await findAgent(em, accountId, agentId), flowId);
}

export function flowRoutes(api: RouteRegistry): void {
  const deps: GraphEditDeps = { nodes: flowNodeCatalog };
  const edit = async (em: EntityManager, accountId: number, ids: FlowId, change: (owner: GraphOwner) => Promise<Graph>) =>
    change(flowGraphOwner(await flowOf(em, accountId, ids)));
  api.add<unknown, { limit: number; cursor?: string }, AgentId>({
    method: 'get',
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
  api.add<unknown, unknown, FlowId>({
    method: 'get',
    path: `${base}/:flowId/graph`,
    scope: 'any',
    tag,
    summary: 'Nodes and edges of the draft graph',
    params,
    responses: { 200: graph },
    etag: true,
    handler: readGraph,
  });
  api.add<NodeInput, unknown, FlowId>({
    method: 'post',
    path: `${base}/:flowId/nodes`,
    scope: 'any',
    tag,
    summary: 'Adds a node (validated with its references and the flow rules; nothing saved on failure); returns the graph',
    params,
    body: FlowNodeSchema,
    status: 201,
    responses: { 201: graph },
    lock: agentLock,
    etag: readGraph,
    handler: async ({ auth, em, params, body }) => edit(em, auth.account.id, params, (owner) => createNode(em, owner, body, deps)),
  });
  api.add<NodeInput, unknown, FlowId & { nodeId: string }>({
    method: 'put',
    path: `${base}/:flowId/nodes/:nodeId`,
    scope: 'any',
    tag,
    summary: 'Updates a node; returns the graph',
    params: nodeParams,
    body: FlowNodeSchema,
    responses: { 200: graph },
    lock: agentLock,
    etag: readGraph,
    handler: async ({ auth, em, params, body }) => edit(em, auth.account.id, params, (owner) => updateNode(em, owner, params.nodeId, body, deps)),
  });
  api.add<unknown, unknown, FlowId & { nodeId: string }>({
    method: 'delete',
    path: `${base}/:flowId/nodes/:nodeId`,
    scope: 'any',
    tag,
    summary: 'Deletes a node and its incoming and outgoing edges; returns the graph',
    params: nodeParams,
    responses: { 200: graph },
    lock: agentLock,
    etag: readGraph,
    handler: async ({ auth, em, params }) => edit(em, auth.account.id, params, (owner) => deleteNode(em, owner, params.nodeId, deps)),
  });
  api.add<GraphEdge, unknown, FlowId>({
    method: 'post',
    path: `${base}/:flowId/edges`,
    scope: 'any',
    tag,
    summary: "Adds or replaces the edge leaving a node's handle",
    params,
    body: EdgeSchema,
    status: 201,
    responses: { 201: graph },
    lock: agentLock,
    etag: readGraph,
    handler: async ({ auth, em, params, body }) => edit(em, auth.account.id, params, (owner) => addEdge(em, owner, body, deps)),
  });
  api.add<{ source: string; handle: string }, unknown, FlowId>({
    method: 'delete',
    path: `${base}/:flowId/edges`,
    scope: 'any',
    tag,
    summary: 'Removes the edge leaving `source` by `handle`',
    params,
    body: EdgeDeleteSchema,
    responses: { 200: graph },
    lock: agentLock,
    etag: readGraph,
    handler: async ({ auth, em, params, body }) =>
      edit(em, auth.account.id, params, (owner) => removeEdge(em, owner, body.source, body.handle, deps)),
  });
  api.add<unknown, unknown, FlowId>({
    method: 'post',
    path: `${base}/:flowId/publish`,
    scope: 'any',
    tag,
    summary: 'Promotes the draft to a new immutable live snapshot, which conversations are served from',
    params,
    status: 201,
    responses: { 201: { description: 'Flow with its new liveSnapshotId', schema: FlowSchema } },
    lock: agentLock,
    handler: async ({ auth, em, params }) => flowView(await publishFlow(em, await flowOf(em, auth.account.id, params))),
  });
  api.add<unknown, unknown, FlowId>({
    method: 'get',
    path: `${base}/:flowId/snapshots`,
    scope: 'any',
    tag,
    summary: 'Draft and live snapshots, newest first',
    params,
    responses: { 200: { description: '{ agentry: [snapshot] }', schema: SnapshotListSchema } },
    handler: async ({ auth, em, params }) => ({ agentry: await listFlowSnapshots(em, await flowOf(em, auth.account.id, params)), nextCursor: null }),
  });
}
