/**
 * The routes of a draft graph, the same for each owner of graphs (`<owner>/graph`, `/nodes`, `/edges`, `/publish`,
 * `/snapshots`, and the versions of graph-versions.routes.ts): a workflow's (workflows.routes.ts) and an agent's
 * flow's (agents/flows.routes.ts). Every edit goes through the graph service with the owner's `GraphOwner` and
 * `GraphEditDeps`; every publish is a numbered version.
 */
import { addEdge, createNode, deleteNode, removeEdge, updateNode, type GraphEditDeps, type NodeInput } from '../../db/automations/graph.service.js';
import type { GraphOwner } from '../../db/automations/graph-owner.js';
import { draftGraph } from '../../db/automations/snapshots.js';
import type { Graph, GraphEdge } from '../../lib/graph/graph.js';
import type { RouteInput, RouteRegistry } from '../route-registry.js';
import { GraphSchema, SnapshotListSchema } from '../schemas/flow.schema.js';
import { EdgeDeleteSchema, EdgeSchema } from '../schemas/workflow.schema.js';
import { ownerOf } from './route-owner.js';
import { graphVersionRoutes } from './graph-versions.routes.js';
import { publisherOf, type GraphRoutesOwner } from './graph-routes-owner.js';
import { PublishSchema } from '../schemas/versions.schema.js';

export function graphRoutes<P, Doc extends { draftSnapshotId: string; liveSnapshotId?: string | null }>(
  api: RouteRegistry,
  owner: GraphRoutesOwner<P, Doc>,
): void {
  const { tag, noun, path, params, nodeParams, lock, summaries } = owner;
  api.resource(path, owner.find);
  type NodeId = P & { nodeId: string };
  const graph = { description: '{ nodes, edges }', schema: GraphSchema };
  const find = (input: RouteInput<unknown, unknown, P>) => ownerOf(owner, input);
  /** The draft graph as `GET .../graph` answers it (the ETag reader of every graph edit). */
  const readGraph = async (input: RouteInput<unknown, unknown, P>) => (await draftGraph(input.em, await find(input))).graph;
  const edit = async (input: RouteInput<unknown, unknown, P>, change: (owner: GraphOwner, deps: GraphEditDeps) => Promise<Graph>) => {
    const { owner: graphOwner, deps } = owner.editOf(await find(input), { by: publisherOf(input.auth) });
    return change(graphOwner, deps);
  };
  api.add<unknown, unknown, P>({
    method: 'get',
    operationId: `get${noun}Graph`,
    path: `${path}/graph`,
    scope: 'any',
    tag,
    summary: 'Nodes and edges of the draft graph',
    params,
    responses: { 200: graph },
    etag: true,
    handler: readGraph,
  });
  api.add<NodeInput, unknown, P>({
    method: 'post',
    operationId: `create${noun}Node`,
    path: `${path}/nodes`,
    scope: 'any',
    tag,
    summary: summaries.addNode,
    params,
    body: owner.node,
    status: 201,
    responses: { 201: graph },
    lock,
    etag: readGraph,
    handler: async (input) => edit(input, (o, deps) => createNode(input.em, o, input.body, deps)),
  });
  api.add<NodeInput, unknown, NodeId>({
    method: 'put',
    operationId: `update${noun}Node`,
    path: `${path}/nodes/:nodeId`,
    scope: 'any',
    tag,
    summary: summaries.updateNode,
    params: nodeParams,
    body: owner.node,
    responses: { 200: graph },
    lock,
    etag: readGraph,
    handler: async (input) => edit(input, (o, deps) => updateNode(input.em, o, input.params.nodeId, input.body, deps)),
  });
  api.add<unknown, unknown, NodeId>({
    method: 'delete',
    operationId: `delete${noun}Node`,
    path: `${path}/nodes/:nodeId`,
    scope: 'any',
    tag,
    summary: summaries.deleteNode,
    params: nodeParams,
    responses: { 200: graph },
    lock,
    etag: readGraph,
    handler: async (input) => edit(input, (o, deps) => deleteNode(input.em, o, input.params.nodeId, deps)),
  });
  api.add<GraphEdge, unknown, P>({
    method: 'post',
    operationId: `create${noun}Edge`,
    path: `${path}/edges`,
    scope: 'any',
    tag,
    summary: "Adds or replaces the edge leaving a node's handle",
    params,
    body: EdgeSchema,
    status: 201,
    responses: { 201: graph },
    lock,
    etag: readGraph,
    handler: async (input) => edit(input, (o, deps) => addEdge(input.em, o, input.body, deps)),
  });
  api.add<{ source: string; handle: string }, unknown, P>({
    method: 'delete',
    operationId: `delete${noun}Edge`,
    path: `${path}/edges`,
    scope: 'any',
    tag,
    summary: 'Removes the edge leaving `source` by `handle`',
    params,
    body: EdgeDeleteSchema,
    responses: { 200: graph },
    lock,
    etag: readGraph,
    handler: async (input) => edit(input, (o, deps) => removeEdge(input.em, o, input.body.source, input.body.handle, deps)),
  });
  api.add<{ message?: string | null }, unknown, P>({
    method: 'post',
    operationId: `publish${noun}`,
    path: `${path}/publish`,
    scope: 'any',
    tag,
    summary: `${summaries.publish}; each publish is the next numbered version (an optional message says what changed)`,
    params,
    body: PublishSchema,
    status: 201,
    responses: owner.published,
    lock,
    handler: async (input) => {
      const doc = await find(input);
      await owner.publish(input.em, doc, { message: input.body.message ?? null, by: publisherOf(input.auth) });
      return owner.view(doc);
    },
  });
  api.add<unknown, unknown, P>({
    method: 'get',
    operationId: `list${noun}Snapshots`,
    path: `${path}/snapshots`,
    scope: 'any',
    tag,
    summary: 'Draft and live snapshots, newest first',
    params,
    responses: { 200: { description: '{ agentry: [snapshot] }', schema: SnapshotListSchema } },
    handler: async (input) => ({ agentry: await owner.snapshots(input.em, await find(input)), nextCursor: null }),
  });
  graphVersionRoutes(api, owner, readGraph);
}
