/**
 * The plan of a bundle import (what is created, the ids it maps, what must be connected by hand, conflicts), the
 * references of graphs and settings it maps from the exporting account's ids to the importing one's, and the
 * save-time checks (node types, ids, data, references, the owner's graph rules) every imported graph passes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, type Issue } from '../../lib/errors.js';
import { normalize, type Graph, type GraphNode } from '../../lib/graph/graph.js';
import type { GraphOwner } from '../automations/graph-owner.js';
import type { GraphRules } from '../automations/graph-rules.js';

export interface PlannedItem {
  kind: string;
  name: string;
  /** Its id where the bundle was exported. */
  sourceId: string | number | null;
  /** Its id here: null in a dry run, and for what the import leaves unchanged. */
  id: string | number | null;
}

export interface ImportPlan {
  dryRun: boolean;
  kind: string;
  checksum: string;
  /** False when the bundle was edited after its export (an import still goes ahead). */
  checksumMatches: boolean;
  /** `create`: new here; `unchanged`: this bundle was imported before (`target` names what it made), nothing is done. */
  action: 'create' | 'unchanged';
  target: { kind: string; id: string | number | null };
  create: PlannedItem[];
  /** `<kind>:<id there>` → id here (null in a dry run). */
  ids: Record<string, string | number | null>;
  /** References the import cannot carry: connect them here, then pass `mapping` (or set them by hand). */
  connect: { reference: string; where: string; message: string }[];
  conflicts: string[];
}

/** What `mapping` of an import maps: `connectedAccount:5` → 7, `agent:<uuid>` → `<uuid>`, `table:orders` → `orders`. */
export type ImportMapping = Record<string, string | number>;

/** Thrown inside the import's transaction to roll a dry run back once its plan is made. */
export class DryRunRollback extends Error {
  constructor(readonly plan: ImportPlan) {
    super('dry run');
  }
}

/** Runs `apply` in one transaction; a dry run is applied the same way, then rolled back, and its new ids hidden. */
export async function inTransaction(em: EntityManager, dryRun: boolean, apply: (tx: EntityManager) => Promise<ImportPlan>): Promise<ImportPlan> {
  try {
    return await em.transactional(async (tx) => {
      const plan = await apply(tx);
      if (dryRun) throw new DryRunRollback(plan);
      return plan;
    });
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error;
    const { plan } = error;
    const ids = Object.fromEntries(Object.keys(plan.ids).map((key) => [key, null]));
    return { ...plan, dryRun: true, ids, create: plan.create.map((item) => ({ ...item, id: null })), target: { ...plan.target, id: null } };
  }
}

/** How the references of an imported graph or setting map, and where unmapped ones are noted. */
export interface ReferenceMaps {
  intents: Map<number, number>;
  resources: Map<number, number>;
  webhooks: Map<string, string>;
  /** The exported agent's id and its new one (a node answering as the agent itself). */
  agent?: { from: string; to: string };
  mapping: ImportMapping;
  connect: ImportPlan['connect'];
}

const LIST_FIELDS: Record<string, 'intents' | 'resources' | 'webhooks' | 'agent' | 'connectedAccount'> = {
  intentIds: 'intents',
  customToolIds: 'resources',
  playbookIds: 'resources',
  knowledgeBaseIds: 'resources',
  triggerByWebhookIds: 'webhooks',
  triggeredByAgentIds: 'agent',
  connectedAccountIds: 'connectedAccount',
};

/** One reference mapped, or undefined (noted in `connect`) when nothing maps it. */
function mapOne(maps: ReferenceMaps, what: string, id: unknown, where: string): unknown {
  const key = typeof id === 'number' ? id : Number(id);
  if (what === 'intents' && maps.intents.has(key)) return maps.intents.get(key);
  if (what === 'resources' && maps.resources.has(key)) return maps.resources.get(key);
  if (what === 'webhooks' && maps.webhooks.has(String(id))) return maps.webhooks.get(String(id));
  if (what === 'agent' && maps.agent && maps.agent.from === id) return maps.agent.to;
  const reference = `${what}:${String(id)}`;
  if (reference in maps.mapping) return maps.mapping[reference];
  maps.connect.push({ reference, where, message: `${what} ${JSON.stringify(id)} is not in the bundle: pass mapping {"${reference}": <id here>}` });
  return undefined;
}

/** `data` with its reference fields mapped (an unmapped id of a list is left out; an unmapped single id stays, and the checks name it). */
export function mapReferences(data: Record<string, unknown>, maps: ReferenceMaps, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const [field, what] of Object.entries(LIST_FIELDS)) {
    const ids = data[field];
    if (!Array.isArray(ids)) continue;
    out[field] = ids.map((id) => mapOne(maps, what, id, `${where}.${field}`)).filter((id) => id !== undefined);
  }
  for (const [field, what] of [
    ['connectedAccountId', 'connectedAccount'],
    ['assistantId', 'agent'],
  ] as const) {
    const id = data[field];
    if (id === undefined || id === null) continue;
    out[field] = mapOne(maps, what, id, `${where}.${field}`) ?? id;
  }
  return out;
}

export function mapGraph(graph: Graph, maps: ReferenceMaps, where: string): Graph {
  const nodes = graph.nodes.map((node) => ({ ...node, data: mapReferences(node.data, maps, `${where} node ${node.nodeId}`) as GraphNode['data'] }));
  return normalize({ nodes, edges: graph.edges });
}

/**
 * Checks an imported graph as the graph service checks a saved node: its type, id, `data.type`, the checks of its
 * type (references to account resources, variables), its edges' handles, and the owner's rules over the whole graph.
 * A problem refuses the import with 400 naming the graph and the node (`label`: `flow "Orders" (draft)`).
 */
export async function checkImportedGraph(
  em: EntityManager,
  owner: GraphOwner,
  rules: GraphRules,
  graph: Graph,
  path: string,
  label: string,
): Promise<void> {
  const declared = await owner.variables(em);
  const variables = new Set([...owner.builtIns, ...declared.map((v) => v.name)]);
  const ids = new Set(graph.nodes.map((n) => n.nodeId));
  for (const [j, node] of graph.nodes.entries()) {
    const at = `${path}.nodes[${j}]`;
    const issues: Issue[] = [];
    if (!rules.types.includes(node.type)) issues.push({ code: 'invalid', path: 'type', message: `must be one of ${rules.types.join(', ')}` });
    else {
      if (!owner.nodeId.pattern.test(node.nodeId)) issues.push({ code: 'invalid', path: 'nodeId', message: `must be ${owner.nodeId.describe}` });
      if (node.data?.type !== node.type) issues.push({ code: 'invalid', path: 'data.type', message: `must repeat the node type ${node.type}` });
      else {
        const { accountId, variablesOf, agentId } = owner;
        issues.push(...(await rules.check(node, { em, accountId, graph, variables, declared, variablesOf, agentId })));
      }
      for (const edge of graph.edges.filter((e) => e.source === node.nodeId)) {
        if (!rules.handles(node).includes(edge.handle)) issues.push({ code: 'invalid', path: 'edges', message: `no handle "${edge.handle}"` });
        if (!ids.has(edge.targetEdge)) issues.push({ code: 'not_found', path: 'edges', message: `no node ${edge.targetEdge}` });
      }
    }
    if (issues.length) {
      const first = issues[0]!;
      throw new BadRequestError(
        `${label}: node ${node.nodeId} (${node.type}): ${first.path} ${first.message}`,
        issues.map((i) => ({ ...i, path: `${at}.${i.path}` })),
      );
    }
  }
  const ruleIssues = owner.rules?.(graph) ?? [];
  if (ruleIssues.length)
    throw new BadRequestError(
      `${label}: ${ruleIssues[0]!.message}`,
      ruleIssues.map((i) => ({ ...i, path: `${path}.${i.path}` })),
    );
}
