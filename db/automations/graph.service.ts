/**
 * Edits of the draft graph of a workflow or a flow (its `GraphOwner`). Each edit builds the new graph in memory,
 * validates the changed node (common shape, then the check of its type) and the owner's graph rules, and only then
 * writes the draft: on any failure nothing changes.
 *
 * EXTERNAL_TRIGGER nodes also hold a subscription with the trigger provider (passed in by the caller). After
 * validation, creating or updating such a node subscribes and stores the new `connectedAccountTriggerId`; the draft
 * is then saved in a transaction that also removes the subscriptions the edit replaces or deletes, so a provider
 * refusal leaves the graph unchanged, and a subscription made for an edit that is not saved is removed again. The
 * index of trigger subscriptions (trigger-subscriptions.ts) is updated in that same transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError, type Issue } from '../../lib/errors.js';
import { findNode, withEdge, withNode, withoutEdge, withoutNode, type Graph, type GraphEdge, type GraphNode } from '../../lib/graph/graph.js';
import { discardSubscription, isExternalTrigger, subscribeNode, subscriptionOf, unsubscribeAll, type TriggerProvider } from './external-triggers.js';
import type { GraphOwner } from './graph-owner.js';
import { headlineOf } from './headline-issues.js';
import type { GraphRules } from './graph-rules.js';
import { draftGraph } from './snapshots.js';
import { updateSubscriptionIndex, type IndexChange } from './trigger-subscriptions.js';
import type { TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import type { AfterSave } from './automations.service.js';

export interface NodeInput {
  nodeId?: string;
  alias?: string;
  position?: { positionX: number; positionY: number };
  type: string;
  data?: Record<string, unknown>;
  edges?: { handle: string; targetEdge: string }[];
}

function fail(issues: Issue[]): never {
  throw new BadRequestError(headlineOf(issues) ?? `Invalid node: ${issues[0]!.path} ${issues[0]!.message}`, issues);
}

/** What a graph edit works with: the node types (checks, handles), the trigger provider, and more work to commit with it. */
export interface GraphEditDeps {
  nodes: GraphRules;
  /** The third-party trigger provider EXTERNAL_TRIGGER nodes subscribe through (undefined: not configured). */
  triggers?: TriggerProvider;
  /** Where the provider delivers the events of new subscriptions, and their secrets (unset: no callback is given). */
  deliveries?: TriggerDeliveries;
  afterSave?: AfterSave;
}

function buildNode(input: NodeInput, owner: GraphOwner, graph: Graph, nodes: GraphRules, existing?: GraphNode): GraphNode {
  const type = input.type;
  const refused = nodes.refused?.[type];
  if (refused) fail([{ code: 'invalid', path: 'type', message: refused }]);
  if (!nodes.types.includes(type)) fail([{ code: 'invalid', path: 'type', message: `must be one of ${nodes.types.join(', ')}` }]);
  if (existing && existing.type !== type)
    fail([{ code: 'invalid', path: 'type', message: 'the type of a node cannot change; delete it and add a new one' }]);
  const data = { ...(input.data ?? existing?.data ?? {}) } as Record<string, unknown>;
  if (data.type !== undefined && data.type !== type) fail([{ code: 'invalid', path: 'data.type', message: `must repeat the node type ${type}` }]);
  if (type === 'TRIGGER') delete data.connectedAccountTriggerId; // output-only
  return {
    nodeId: existing?.nodeId ?? input.nodeId ?? owner.newNodeId(graph, type),
    alias: input.alias ?? existing?.alias ?? type.toLowerCase(),
    position: input.position ?? existing?.position ?? { positionX: 0, positionY: 0 },
    type,
    data: { ...data, type },
    edges: existing?.edges ?? [],
  };
}

async function validate(em: EntityManager, owner: GraphOwner, graph: Graph, node: GraphNode, nodes: GraphRules): Promise<void> {
  const issues: Issue[] = [];
  if (!owner.nodeId.pattern.test(node.nodeId)) issues.push({ code: 'invalid', path: 'nodeId', message: `must be ${owner.nodeId.describe}` });
  if (!node.alias.trim()) issues.push({ code: 'invalid', path: 'alias', message: 'must not be empty' });
  if (graph.nodes.some((n) => n !== node && n.nodeId !== node.nodeId && n.alias === node.alias)) {
    issues.push({ code: 'invalid', path: 'alias', message: `another node is already called "${node.alias}"` });
  }
  const declared = await owner.variables(em);
  const variables = new Set([...owner.builtIns, ...declared.map((v) => v.name)]);
  const { accountId, variablesOf, agentId } = owner;
  issues.push(...(await nodes.check(node, { em, accountId, graph, variables, declared, variablesOf, agentId })));
  issues.push(...(owner.rules?.(graph) ?? []));
  if (issues.length) fail(issues);
}

/** The owner's rules over the whole graph after an edit that changes no node's data (a deletion, an edge). */
function checkRules(owner: GraphOwner, graph: Graph): Graph {
  const issues = owner.rules?.(graph) ?? [];
  if (issues.length) fail(issues);
  return graph;
}

async function save(em: EntityManager, owner: GraphOwner, graph: Graph): Promise<Graph> {
  const { snapshot } = await draftGraph(em, owner);
  snapshot.nodes = graph.nodes;
  snapshot.edges = graph.edges;
  owner.onSave?.(graph);
  await em.flush();
  return graph;
}

interface SideEffects {
  /** The created or updated node: subscribed when it is an EXTERNAL_TRIGGER. */
  subscribe?: string;
  /** Subscriptions the edit replaces or deletes, removed once the draft is written. */
  unsubscribe?: (string | undefined)[];
  /** Request field named when removing a subscription fails. */
  path?: string;
}

/** Saves the draft, then runs `afterSave` in the same transaction when there is one. */
async function saveWith(em: EntityManager, owner: GraphOwner, graph: Graph, afterSave?: AfterSave): Promise<Graph> {
  if (!afterSave) return save(em, owner, graph);
  return em.transactional(async (tx) => {
    const saved = await save(tx, owner, graph);
    await afterSave(tx);
    return saved;
  });
}

/**
 * Saves an edited graph together with its provider side effects: subscribe the changed node (before anything is
 * written), then write the draft, run `afterSave`, update the index of trigger subscriptions and remove the
 * replaced subscriptions in one transaction. Any failure after the subscription removes it again; a failed removal
 * rolls the draft back.
 */
async function commit(em: EntityManager, owner: GraphOwner, graph: Graph, deps: GraphEditDeps, effects: SideEffects): Promise<Graph> {
  const { triggers, afterSave } = deps;
  let next = graph;
  let subscribed: string | undefined;
  let index: IndexChange['add'];
  const target = effects.subscribe ? findNode(graph, effects.subscribe) : undefined;
  if (isExternalTrigger(target)) {
    const { data, subscriptionId, indexId } = await subscribeNode(em, owner.accountId, target, triggers, deps.deliveries);
    subscribed = subscriptionId;
    next = { ...graph, nodes: graph.nodes.map((n) => (n.nodeId === target.nodeId ? { ...n, data } : n)) };
    if (owner.automationId !== undefined) {
      index = {
        id: indexId,
        accountId: owner.accountId,
        automationId: owner.automationId,
        nodeId: target.nodeId,
        providerSubscriptionId: subscriptionId,
      };
    }
  }
  const stale = [...new Set(effects.unsubscribe ?? [])].filter((id): id is string => !!id && id !== subscribed);
  try {
    if (!subscribed && !stale.length) return await saveWith(em, owner, next, afterSave);
    return await em.transactional(async (tx) => {
      const saved = await saveWith(tx, owner, next, afterSave);
      await updateSubscriptionIndex(tx, { add: index, remove: stale });
      await unsubscribeAll(triggers, stale, 'The trigger subscription of the node cannot be removed', effects.path ?? 'nodeId');
      return saved;
    });
  } catch (error) {
    await discardSubscription(triggers, subscribed);
    throw error;
  }
}

/** `api`, then `api_2`, `api_3`…: a default alias no other node of the graph has. */
function freeAlias(graph: Graph, base: string): string {
  const taken = new Set(graph.nodes.map((n) => n.alias));
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

function requireNode(graph: Graph, nodeId: string): GraphNode {
  const node = findNode(graph, nodeId);
  if (!node) throw new NotFoundError(`Node ${nodeId} not found`);
  return node;
}

/** An edge may leave a node only from one of the handles its type declares. */
function requireHandle(nodes: GraphRules, source: GraphNode, handle: string, path: string): void {
  const handles = nodes.handles(source);
  if (handles.includes(handle)) return;
  const allowed = handles.length ? `one of ${handles.map((h) => `"${h}"`).join(', ')}` : 'none: no edge leaves it';
  throw new BadRequestError(`A ${source.type} node has no handle "${handle}" (its handles: ${allowed})`, [
    { code: 'invalid', path, message: `must be a handle of the ${source.type} node: ${allowed}` },
  ]);
}

function withInlineEdges(graph: Graph, node: GraphNode, edges: NodeInput['edges'], nodes: GraphRules): Graph {
  let next = graph;
  for (const [i, edge] of (edges ?? []).entries()) {
    requireNodeForEdge(next, edge.targetEdge);
    requireHandle(nodes, findNode(next, node.nodeId)!, edge.handle, `edges[${i}].handle`);
    next = withEdge(next, { source: node.nodeId, handle: edge.handle, targetEdge: edge.targetEdge });
  }
  return next;
}

function requireNodeForEdge(graph: Graph, nodeId: string): void {
  if (!findNode(graph, nodeId))
    throw new BadRequestError(`Node ${nodeId} does not exist in this graph`, [
      { code: 'not_found', path: 'targetEdge', message: `no node ${nodeId}` },
    ]);
}

export async function createNode(em: EntityManager, owner: GraphOwner, input: NodeInput, deps: GraphEditDeps): Promise<Graph> {
  const { graph } = await draftGraph(em, owner);
  if (input.nodeId && findNode(graph, input.nodeId)) throw new BadRequestError(`Node ${input.nodeId} already exists`, 'nodeId');
  const node = buildNode({ ...input, alias: input.alias ?? freeAlias(graph, input.type.toLowerCase()) }, owner, graph, deps.nodes);
  let next = withNode(graph, node);
  await validate(em, owner, next, findNode(next, node.nodeId)!, deps.nodes);
  next = checkRules(owner, withInlineEdges(next, node, input.edges, deps.nodes));
  return commit(em, owner, next, deps, { subscribe: node.nodeId });
}

/** Replaces a node; an EXTERNAL_TRIGGER is subscribed anew and its previous subscription removed once saved. */
export async function updateNode(em: EntityManager, owner: GraphOwner, nodeId: string, input: NodeInput, deps: GraphEditDeps): Promise<Graph> {
  const { graph } = await draftGraph(em, owner);
  const existing = requireNode(graph, nodeId);
  const node = buildNode(input, owner, graph, deps.nodes, existing);
  let next = withNode(graph, node);
  await validate(em, owner, next, findNode(next, nodeId)!, deps.nodes);
  if (input.edges) next = checkRules(owner, withInlineEdges(next, node, input.edges, deps.nodes));
  return commit(em, owner, next, deps, { subscribe: nodeId, unsubscribe: [subscriptionOf(existing)], path: 'data' });
}

/** Deletes a node and its edges; an EXTERNAL_TRIGGER's subscription is removed with it (or nothing is deleted). */
export async function deleteNode(em: EntityManager, owner: GraphOwner, nodeId: string, deps: GraphEditDeps): Promise<Graph> {
  const { graph } = await draftGraph(em, owner);
  const node = requireNode(graph, nodeId);
  return commit(em, owner, checkRules(owner, withoutNode(graph, nodeId)), deps, { unsubscribe: [subscriptionOf(node)], path: 'nodeId' });
}

/** Adds an edge from one of the source node's handles, replacing the edge that left that handle. */
export async function addEdge(em: EntityManager, owner: GraphOwner, edge: GraphEdge, deps: GraphEditDeps): Promise<Graph> {
  const { graph } = await draftGraph(em, owner);
  const source = findNode(graph, edge.source);
  if (!source)
    throw new BadRequestError(`Node ${edge.source} does not exist in this graph`, [
      { code: 'not_found', path: 'source', message: `no node ${edge.source}` },
    ]);
  requireNodeForEdge(graph, edge.targetEdge);
  if (edge.source === edge.targetEdge) throw new BadRequestError('An edge cannot connect a node to itself', 'targetEdge');
  requireHandle(deps.nodes, source, edge.handle, 'handle');
  return saveWith(em, owner, checkRules(owner, withEdge(graph, edge)), deps.afterSave);
}

export async function removeEdge(em: EntityManager, owner: GraphOwner, source: string, handle: string, deps: GraphEditDeps): Promise<Graph> {
  const { graph } = await draftGraph(em, owner);
  if (!graph.edges.some((e) => e.source === source && e.handle === handle)) throw new NotFoundError(`No edge leaves ${source} by handle "${handle}"`);
  return saveWith(em, owner, withoutEdge(graph, source, handle), deps.afterSave);
}
