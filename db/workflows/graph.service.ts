/**
 * Edits of a workflow's draft graph. Each edit builds the new graph in memory, validates the changed node
 * (common shape, then the check of its type), and only then writes the draft: on any failure nothing changes.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError, type Issue } from '../../lib/errors.js';
import { findNode, withEdge, withNode, withoutEdge, withoutNode, type Graph, type GraphEdge, type GraphNode } from '../../lib/graph/graph.js';
import { WORKFLOW_NODE_ID, WORKFLOW_NODE_TYPES, triggerTypeOf, type WorkflowNodeType } from '../../lib/graph/workflow-nodes.js';
import type { Workflow } from '../entities/index.js';
import { NODE_CHECKS } from './nodes/index.js';
import { listVariables } from './variables.service.js';
import { draftGraph } from './workflows.service.js';

export interface NodeInput {
  nodeId?: string;
  alias?: string;
  position?: { positionX: number; positionY: number };
  type: string;
  data?: Record<string, unknown>;
  edges?: { handle: string; targetEdge: string }[];
}

function fail(issues: Issue[]): never {
  throw new BadRequestError(`Invalid node: ${issues[0]!.path} ${issues[0]!.message}`, issues);
}

function buildNode(input: NodeInput, existing?: GraphNode): GraphNode {
  const type = input.type;
  if (!(WORKFLOW_NODE_TYPES as readonly string[]).includes(type)) {
    fail([{ code: 'invalid', path: 'type', message: `must be one of ${WORKFLOW_NODE_TYPES.join(', ')}` }]);
  }
  if (existing && existing.type !== type) fail([{ code: 'invalid', path: 'type', message: 'the type of a node cannot change; delete it and add a new one' }]);
  const data = { ...(input.data ?? existing?.data ?? {}) } as Record<string, unknown>;
  if (data.type !== undefined && data.type !== type) fail([{ code: 'invalid', path: 'data.type', message: `must repeat the node type ${type}` }]);
  if (type === 'TRIGGER') delete data.connectedAccountTriggerId; // output-only
  return {
    nodeId: existing?.nodeId ?? input.nodeId ?? `node_${randomUUID()}`,
    alias: input.alias ?? existing?.alias ?? type.toLowerCase(),
    position: input.position ?? existing?.position ?? { positionX: 0, positionY: 0 },
    type,
    data: { ...data, type },
    edges: existing?.edges ?? [],
  };
}

async function validate(em: EntityManager, workflow: Workflow, graph: Graph, node: GraphNode): Promise<void> {
  const issues: Issue[] = [];
  if (!WORKFLOW_NODE_ID.test(node.nodeId)) issues.push({ code: 'invalid', path: 'nodeId', message: 'must be node_<uuid>' });
  if (!node.alias.trim()) issues.push({ code: 'invalid', path: 'alias', message: 'must not be empty' });
  if (graph.nodes.some((n) => n !== node && n.nodeId !== node.nodeId && n.alias === node.alias)) {
    issues.push({ code: 'invalid', path: 'alias', message: `another node is already called "${node.alias}"` });
  }
  const check = NODE_CHECKS[node.type as WorkflowNodeType];
  if (check) {
    const variables = new Set((await listVariables(em, workflow)).map((v) => v.name));
    issues.push(...(await check(node, { em, accountId: workflow.account.id, workflowId: workflow.id, graph, variables })));
  }
  if (issues.length) fail(issues);
}

async function save(em: EntityManager, workflow: Workflow, graph: Graph): Promise<Graph> {
  const { snapshot } = await draftGraph(em, workflow);
  snapshot.nodes = graph.nodes;
  snapshot.edges = graph.edges;
  workflow.triggerType = triggerTypeOf(graph);
  await em.flush();
  return graph;
}

function requireNode(graph: Graph, nodeId: string): GraphNode {
  const node = findNode(graph, nodeId);
  if (!node) throw new NotFoundError(`Node ${nodeId} not found`);
  return node;
}

function withInlineEdges(graph: Graph, node: GraphNode, edges: NodeInput['edges']): Graph {
  let next = graph;
  for (const edge of edges ?? []) {
    requireNodeForEdge(next, edge.targetEdge);
    next = withEdge(next, { source: node.nodeId, handle: edge.handle, targetEdge: edge.targetEdge });
  }
  return next;
}

function requireNodeForEdge(graph: Graph, nodeId: string): void {
  if (!findNode(graph, nodeId)) throw new BadRequestError(`Node ${nodeId} does not exist in this graph`, [{ code: 'not_found', path: 'targetEdge', message: `no node ${nodeId}` }]);
}

export async function createNode(em: EntityManager, workflow: Workflow, input: NodeInput): Promise<Graph> {
  const { graph } = await draftGraph(em, workflow);
  if (input.nodeId && findNode(graph, input.nodeId)) throw new BadRequestError(`Node ${input.nodeId} already exists`, 'nodeId');
  const node = buildNode(input);
  let next = withNode(graph, node);
  await validate(em, workflow, next, findNode(next, node.nodeId)!);
  next = withInlineEdges(next, node, input.edges);
  return save(em, workflow, next);
}

export async function updateNode(em: EntityManager, workflow: Workflow, nodeId: string, input: NodeInput): Promise<Graph> {
  const { graph } = await draftGraph(em, workflow);
  const node = buildNode(input, requireNode(graph, nodeId));
  let next = withNode(graph, node);
  await validate(em, workflow, next, findNode(next, nodeId)!);
  if (input.edges) next = withInlineEdges(next, node, input.edges);
  return save(em, workflow, next);
}

export async function deleteNode(em: EntityManager, workflow: Workflow, nodeId: string): Promise<Graph> {
  const { graph } = await draftGraph(em, workflow);
  requireNode(graph, nodeId);
  return save(em, workflow, withoutNode(graph, nodeId));
}

export async function addEdge(em: EntityManager, workflow: Workflow, edge: GraphEdge): Promise<Graph> {
  const { graph } = await draftGraph(em, workflow);
  if (!findNode(graph, edge.source)) throw new BadRequestError(`Node ${edge.source} does not exist in this graph`, [{ code: 'not_found', path: 'source', message: `no node ${edge.source}` }]);
  requireNodeForEdge(graph, edge.targetEdge);
  if (edge.source === edge.targetEdge) throw new BadRequestError('An edge cannot connect a node to itself', 'targetEdge');
  return save(em, workflow, withEdge(graph, edge));
}

export async function removeEdge(em: EntityManager, workflow: Workflow, source: string, handle: string): Promise<Graph> {
  const { graph } = await draftGraph(em, workflow);
  if (!graph.edges.some((e) => e.source === source && e.handle === handle)) throw new NotFoundError(`No edge leaves ${source} by handle "${handle}"`);
  return save(em, workflow, withoutEdge(graph, source, handle));
}
