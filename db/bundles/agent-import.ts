/**
 * Imports an agent bundle (agent-bundle.ts) into an account, in the caller's transaction: the custom tools, playbooks
 * and knowledge bases it carries (with their documents when it has them), the agent (offline), its settings with
 * their references mapped, variables, intents, and its flows, each live graph published as version 1 and the draft
 * kept beside it. Every graph passes the save-time checks first (a bad one refuses the import naming the node). An
 * agent this account imported from the same bundle before is left as it is.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import { normalize } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';
import { AgentConfig } from '../agents/agent-config.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { createAgent } from '../agents/agents.service.js';
import { agentVariables } from '../agents/agent-variables.js';
import { flowGraphOwner } from '../agents/flow-graph-owner.js';
import type { Flow } from '../agents/flow.entity.js';
import { createFlow, listFlows, publishFlow } from '../agents/flows.service.js';
import { Intent } from '../agents/intent.entity.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { draftGraph } from '../automations/snapshots.js';
import { createVariable } from '../automations/variables.service.js';
import { addDocument } from '../knowledge/knowledge-documents.service.js';
import { BundleImport } from './bundle-import.entity.js';
import { checkImportedGraph, mapGraph, mapReferences, type ImportMapping, type ImportPlan, type ReferenceMaps } from './bundle-plan.js';

interface BundledGraph {
  nodes: (Omit<Graph['nodes'][number], 'edges'> & { edges?: unknown })[];
  edges: Graph['edges'];
}

export interface AgentBundleContent {
  source: { namespace: string; id: string };
  agent: {
    name: string;
    description: string | null;
    settings: Record<string, Record<string, unknown>>;
    variables: { name: string; description: string }[];
    intents: { ref: number; name: string; description: string; trainingPhrases: string[] }[];
    flows: {
      ref: number;
      name: string;
      description: string | null;
      status: Flow['status'];
      isDefault: boolean;
      draft: BundledGraph;
      live: BundledGraph | null;
    }[];
  };
  resources: {
    ref: number;
    kind: AgentResource['kind'];
    name: string;
    values: Record<string, unknown>;
    documents?: ({ title: string; content: string } | { title: string; url: string })[];
  }[];
}

const asGraph = (g: BundledGraph): Graph => normalize({ nodes: g.nodes.map((n) => ({ ...n, edges: [] })) as Graph['nodes'], edges: g.edges ?? [] });

async function setDraft(em: EntityManager, flow: Flow, graph: Graph): Promise<void> {
  const { snapshot } = await draftGraph(em, flow);
  snapshot.nodes = graph.nodes;
  snapshot.edges = graph.edges;
  await em.flush();
}

export async function importAgent(
  tx: EntityManager,
  accountId: number,
  content: AgentBundleContent,
  plan: ImportPlan,
  deps: { flowRules: GraphRules; mapping: ImportMapping },
): Promise<ImportPlan> {
  const { source, agent: bundled } = content;
  if (!source?.id || !bundled?.name || !Array.isArray(bundled.flows))
    throw new BadRequestError('Not an agent bundle: source, agent and agent.flows are required', 'bundle');
  const sourceKey = `${source.namespace}/${source.id}`;
  const before = await tx.findOne(BundleImport, { account: accountId, kind: 'agent', sourceKey });
  if (before?.checksum === plan.checksum) return { ...plan, action: 'unchanged', target: { kind: 'agent', id: before.targetId } };
  const maps: ReferenceMaps = { intents: new Map(), resources: new Map(), webhooks: new Map(), mapping: deps.mapping, connect: plan.connect };
  const account = tx.getReference(Account, accountId);
  for (const r of content.resources ?? []) {
    const resource = tx.create(AgentResource, { account, kind: r.kind, name: r.name, values: r.values ?? {} });
    await tx.flush();
    maps.resources.set(r.ref, resource.id);
    plan.create.push({ kind: r.kind, name: r.name, sourceId: r.ref, id: resource.id });
    plan.ids[`resource:${r.ref}`] = resource.id;
    for (const doc of r.documents ?? [])
      await addDocument(tx, resource, 'url' in doc ? { title: doc.title, url: doc.url } : { title: doc.title, content: doc.content });
  }
  const agent = await createAgent(tx, accountId, { name: bundled.name, description: bundled.description });
  maps.agent = { from: source.id, to: agent.id };
  plan.create.unshift({ kind: 'agent', name: agent.name, sourceId: source.id, id: agent.id });
  plan.ids[`agent:${source.id}`] = agent.id;
  for (const [kind, values] of Object.entries(bundled.settings ?? {})) {
    const config = await tx.findOne(AgentConfig, { agent, kind });
    if (config) config.values = kind === 'SETTING' ? mapReferences(values, maps, `settings.${kind}`) : values;
  }
  for (const v of bundled.variables ?? []) await createVariable(tx, agentVariables(agent), v);
  for (const i of bundled.intents ?? []) {
    const intent = tx.create(Intent, { agent, name: i.name, description: i.description ?? '', trainingPhrases: i.trainingPhrases ?? [] });
    await tx.flush();
    maps.intents.set(i.ref, intent.id);
    plan.create.push({ kind: 'intent', name: i.name, sourceId: i.ref, id: intent.id });
    plan.ids[`intent:${i.ref}`] = intent.id;
  }
  const [defaultFlow] = await listFlows(tx, agent);
  for (const [index, f] of bundled.flows.entries()) {
    const flow = f.isDefault ? defaultFlow! : await createFlow(tx, agent, { name: f.name });
    Object.assign(flow, { name: f.name, description: f.description ?? null, status: f.status ?? 'DRAFT' });
    const owner = flowGraphOwner(flow);
    const label = `flow "${f.name}"`;
    const draft = mapGraph(asGraph(f.draft), maps, `${label} (draft)`);
    if (f.live) {
      const live = mapGraph(asGraph(f.live), maps, `${label} (live)`);
      await checkImportedGraph(tx, owner, deps.flowRules, live, `bundle.agent.flows[${index}].live`, `${label} (live)`);
      await setDraft(tx, flow, live);
      await publishFlow(tx, flow, { message: `Imported from ${source.namespace}` });
    }
    await checkImportedGraph(tx, owner, deps.flowRules, draft, `bundle.agent.flows[${index}].draft`, `${label} (draft)`);
    await setDraft(tx, flow, draft);
    plan.create.push({ kind: 'flow', name: f.name, sourceId: f.ref, id: flow.id });
    plan.ids[`flow:${f.ref}`] = flow.id;
  }
  if (before) {
    plan.conflicts.push(
      `agent ${source.id} was imported before (as ${before.targetId}) from another version of this bundle: imported again as a new agent`,
    );
    before.targetId = agent.id;
    before.checksum = plan.checksum;
  } else tx.create(BundleImport, { account, kind: 'agent', sourceKey, targetId: agent.id, checksum: plan.checksum });
  await tx.flush();
  return { ...plan, target: { kind: 'agent', id: agent.id } };
}
