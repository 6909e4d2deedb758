/**
 * Graphs in bundles: how a bundle holds one (its edges once, in the global list), and how an import puts a bundled
 * draft and live graph on a flow or a workflow, new or imported before: references mapped, the save-time checks
 * (node types, ids, data, references, the owner's graph rules) passed, the secrets the bundle left out kept from the
 * same nodes here, the live graph published as the next version
 * when it differs from what is live, the draft set, and what changed said a line each (lib/graph/graph-diff.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { withSecretsKept } from '../../lib/bundles/bundle-format.js';
import { BadRequestError, type Issue } from '../../lib/errors.js';
import { diffGraphs } from '../../lib/graph/graph-diff.js';
import { normalize, type Graph } from '../../lib/graph/graph.js';
import type { GraphOwner } from '../automations/graph-owner.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import { draftGraph, promoteDraft, type SnapshotOwner, type SnapshotOwnerType } from '../automations/snapshots.js';
import { mapGraph, type ReferenceMaps } from './bundle-plan.js';

/** A graph as a bundle holds it: nodes without their inline edges, and the edges. */
export interface BundledGraph {
  nodes: (Omit<Graph['nodes'][number], 'edges'> & { edges?: unknown })[];
  edges: Graph['edges'];
}

/** A graph as a bundle holds it: the edges once, in the global list (an import rebuilds the inline ones). */
export const bundledGraph = (graph: Graph | null | undefined): BundledGraph | null =>
  graph ? { nodes: graph.nodes.map(({ edges: _inline, ...node }) => node), edges: graph.edges } : null;

const asGraph = (g: BundledGraph): Graph => normalize({ nodes: g.nodes.map((n) => ({ ...n, edges: [] })) as Graph['nodes'], edges: g.edges ?? [] });

/**
 * The bundled graph with the secrets it left out (null: a header's value, an `apiKey`) taken from the same node here
 * (`here`, in order: the first graph holding the node), so a secret set here since an earlier import stays.
 */
function withSecretsOf(graph: Graph, here: (Graph | null)[]): Graph {
  const nodes = graph.nodes.map((node) => {
    const same = here.map((g) => g?.nodes.find((n) => n.nodeId === node.nodeId && n.type === node.type)).find(Boolean);
    return same ? { ...node, data: withSecretsKept(node.data, same.data) } : node;
  });
  return { ...graph, nodes };
}

/** Sets the owner's draft graph (a workflow's trigger type follows it). */
export async function setDraft(em: EntityManager, owner: GraphOwner, graph: Graph): Promise<void> {
  const { snapshot } = await draftGraph(em, owner);
  snapshot.nodes = graph.nodes;
  snapshot.edges = graph.edges;
  owner.onSave?.(graph);
  await em.flush();
}

/**
 * Checks an imported graph as the graph service checks a saved node: its type, id, `data.type`, the checks of its
 * type (references to account resources, variables), its edges' handles, and the owner's rules over the whole graph.
 * A problem refuses the import with 400 naming the graph and the node (`label`: `flow "Orders" (draft)`); `waived`
 * (`<nodeId> data.<field>`) are references already listed to connect, which a dry run does not refuse.
 */
export async function checkImportedGraph(
  em: EntityManager,
  owner: GraphOwner,
  rules: GraphRules,
  graph: Graph,
  at: { path: string; label: string; waived?: Set<string> },
): Promise<void> {
  const { path, label, waived } = at;
  const declared = await owner.variables(em);
  const variables = new Set([...owner.builtIns, ...declared.map((v) => v.name)]);
  const ids = new Set(graph.nodes.map((n) => n.nodeId));
  for (const [j, node] of graph.nodes.entries()) {
    let issues: Issue[] = [];
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
    if (waived) issues = issues.filter((i) => !waived.has(`${node.nodeId} ${i.path}`));
    if (issues.length) {
      const first = issues[0]!;
      throw new BadRequestError(
        `${label}: node ${node.nodeId} (${node.type}): ${first.path} ${first.message}`,
        issues.map((i) => ({ ...i, path: `${path}.nodes[${j}].${i.path}` })),
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

/** Where the graphs go: a flow or a workflow, as the graph checks and the snapshots know it. */
export interface GraphTarget {
  owner: GraphOwner;
  snapshots: SnapshotOwner;
  ownerType: SnapshotOwnerType;
  ownerId: string;
  rules: GraphRules;
  /** Where the graphs are in the bundle (`bundle.agent.flows[0]`) and what a person calls them (`flow "Start"`). */
  path: string;
  label: string;
}

export interface PutGraphsOptions {
  dryRun: boolean;
  /** False: the live graph is not published here (an ACTIVE workflow's schedules would not follow); `held` says what. */
  publish: boolean;
  message: string;
}

/**
 * Puts a bundle's draft and live graph on the target: both checked first; the live one published as the next version
 * when it differs from what is live here; the draft set. Answers what changed, a line each, and `held`, the change of
 * the live graph left unpublished (then the draft holds the bundle's live graph, to publish by hand).
 */
export async function putGraphs(
  tx: EntityManager,
  target: GraphTarget,
  graphs: { draft: BundledGraph; live: BundledGraph | null },
  maps: ReferenceMaps,
  options: PutGraphsOptions,
): Promise<{ changes: string[]; held: string[] | null }> {
  const { owner, snapshots, rules, path, label } = target;
  const waived = options.dryRun ? maps.unresolved : undefined;
  const { graph: draftBefore } = await draftGraph(tx, snapshots);
  const current = snapshots.liveSnapshotId ? await tx.findOneOrFail(GraphSnapshot, { id: snapshots.liveSnapshotId }) : null;
  const live = graphs.live && withSecretsOf(mapGraph(asGraph(graphs.live), maps, `${label} (live)`), [current, draftBefore]);
  let draft = withSecretsOf(mapGraph(asGraph(graphs.draft), maps, `${label} (draft)`), [draftBefore, current]);
  if (live) await checkImportedGraph(tx, owner, rules, live, { path: `${path}.live`, label: `${label} (live)`, waived });
  await checkImportedGraph(tx, owner, rules, draft, { path: `${path}.draft`, label: `${label} (draft)`, waived });
  const changes: string[] = [];
  let held: string[] | null = null;
  const liveChanges = live && (current ? diffGraphs(current, live).summary : ['published']);
  if (live && liveChanges?.length) {
    if (options.publish) {
      await setDraft(tx, owner, live);
      const version = await promoteDraft(tx, snapshots, target.ownerType, target.ownerId, { message: options.message });
      changes.push(`live graph published as version ${version.version}${current ? `: ${liveChanges.join('; ')}` : ''}`);
    } else {
      held = liveChanges;
      draft = live;
    }
  }
  // A draft as the live graph is no change of its own: the publish said it.
  const draftChanges = live && !diffGraphs(live, draft).summary.length ? [] : diffGraphs(draftBefore, draft).summary;
  if (draftChanges.length && !held) changes.push(`draft: ${draftChanges.join('; ')}`);
  await setDraft(tx, owner, draft);
  return { changes, held };
}
