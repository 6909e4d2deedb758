/**
 * Imports an agent bundle (agent-bundle.ts) into an account, in the caller's transaction: the custom tools, playbooks
 * and knowledge bases it carries (with their documents when it has them), the agent (offline), its settings with
 * their references mapped, variables, intents, and its flows, each live graph published as a version and the draft
 * kept beside it; the numbers and pages that answered it there are listed to connect. Every graph passes the
 * save-time checks first (a bad one refuses the import naming the node). A changed bundle of an agent this account
 * imported before updates that agent in place (the same ids), and lists what the earlier one made that it lacks
 * (removed with `prune`: bundle-prune.ts); the same bundle again changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { withSecretsKept } from '../../lib/bundles/bundle-format.js';
import { BadRequestError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { Agent } from '../agents/agent.entity.js';
import { AgentConfig } from '../agents/agent-config.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { createAgent } from '../agents/agents.service.js';
import { agentVariables } from '../agents/agent-variables.js';
import { flowGraphOwner } from '../agents/flow-graph-owner.js';
import { Flow } from '../agents/flow.entity.js';
import { createFlow, listFlows } from '../agents/flows.service.js';
import { Intent } from '../agents/intent.entity.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { MessagingNumber } from '../channels/messaging-number.entity.js';
import { addDocument } from '../knowledge/knowledge-documents.service.js';
import { putGraphs, type BundledGraph } from './bundle-graphs.js';
import { mapReferences, noteChange, planItem, referenceMaps, type ImportMapping, type ImportPlan, type ReferenceMaps } from './bundle-plan.js';
import { settleStale } from './bundle-prune.js';
import { finishImport, priorImport, putVariables } from './bundle-targets.js';
import { connectChannels, type BundledChannel } from './channel-references.js';

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
    channels?: BundledChannel[];
  };
  resources: {
    ref: number;
    kind: AgentResource['kind'];
    name: string;
    values: Record<string, unknown>;
    documents?: ({ title: string; content: string } | { title: string; url: string })[];
  }[];
}

type Ids = Record<string, string | number>;

/** The keys the bundle's items take in the plan's ids (what is stale is what an earlier import made beyond them). */
function bundleKeys(content: AgentBundleContent): Set<string> {
  const { agent } = content;
  return new Set([
    ...(content.resources ?? []).map((r) => `resource:${r.ref}`),
    ...(agent.intents ?? []).map((i) => `intent:${i.ref}`),
    ...agent.flows.map((f) => `flow:${f.ref}`),
    ...(agent.variables ?? []).map((v) => `variable:${v.name}`),
  ]);
}

/** The custom tools, playbooks and knowledge bases: the ones an earlier import made updated, the others created. */
async function putResources(tx: EntityManager, accountId: number, content: AgentBundleContent, plan: ImportPlan, maps: ReferenceMaps, ids: Ids) {
  for (const r of content.resources ?? []) {
    const key = `resource:${r.ref}`;
    const found = key in ids ? await tx.findOne(AgentResource, { id: Number(ids[key]), account: accountId }) : null;
    const resource =
      found ?? tx.create(AgentResource, { account: tx.getReference(Account, accountId), kind: r.kind, name: r.name, values: r.values ?? {} });
    const changes: string[] = [];
    if (found) {
      if (noteChange(changes, 'name', found.name, r.name)) found.name = r.name;
      if (noteChange(changes, 'values', found.values, r.values ?? {})) found.values = withSecretsKept(r.values ?? {}, found.values);
    }
    await tx.flush();
    for (const doc of r.documents ?? []) {
      const { created } = await addDocument(
        tx,
        resource,
        'url' in doc ? { title: doc.title, url: doc.url } : { title: doc.title, content: doc.content },
      );
      if (created && found) changes.push(`document "${doc.title}" added`);
    }
    maps.resources.set(r.ref, resource.id);
    planItem(plan, key, { kind: r.kind, name: r.name, sourceId: r.ref, id: resource.id }, found ? changes : undefined);
  }
}

async function putIntents(
  tx: EntityManager,
  agent: Agent,
  intents: AgentBundleContent['agent']['intents'],
  plan: ImportPlan,
  maps: ReferenceMaps,
  ids: Ids,
) {
  for (const i of intents ?? []) {
    const key = `intent:${i.ref}`;
    const found = key in ids ? await tx.findOne(Intent, { id: Number(ids[key]), agent }) : null;
    const fields = { name: i.name, description: i.description ?? '', trainingPhrases: i.trainingPhrases ?? [] };
    const intent = found ?? tx.create(Intent, { agent, ...fields });
    const changes: string[] = [];
    if (found)
      for (const [field, value] of Object.entries(fields))
        if (noteChange(changes, field, found[field as keyof typeof fields], value)) Object.assign(found, { [field]: value });
    await tx.flush();
    maps.intents.set(i.ref, intent.id);
    planItem(plan, key, { kind: 'intent', name: i.name, sourceId: i.ref, id: intent.id }, found ? changes : undefined);
  }
}

export async function importAgent(
  tx: EntityManager,
  accountId: number,
  content: AgentBundleContent,
  plan: ImportPlan,
  deps: { flowRules: GraphRules; mapping: ImportMapping; prune?: boolean },
): Promise<ImportPlan> {
  const { source, agent: bundled } = content;
  if (!source?.id || !bundled?.name || !Array.isArray(bundled.flows))
    throw new BadRequestError('Not an agent bundle: source, agent and agent.flows are required', 'bundle');
  const prior = await priorImport(tx, accountId, 'agent', source);
  const previous = prior.before && (await tx.findOne(Agent, { id: prior.before.targetId, account: accountId, deletedAt: null }));
  const scopeOf = (agent: Agent) => ({ accountId, agent, variables: agentVariables(agent), variablesUsed: deps.flowRules.variablesUsed });
  if (previous && prior.before?.checksum === plan.checksum) {
    const same = { ...plan, action: 'unchanged' as const, target: { kind: 'agent', id: previous.id }, stale: [] };
    await settleStale(tx, scopeOf(previous), same, prior.ids, bundleKeys(content), false);
    if (!deps.prune || !same.stale.length) return same;
  }
  if (prior.before && !previous)
    plan.conflicts.push(`agent ${source.id} was imported before as ${prior.before.targetId}, which is no longer here: imported anew`);
  const ids = previous ? prior.ids : {};
  const maps = referenceMaps(deps.mapping, plan.connect);
  for (const n of await tx.find(MessagingNumber, { account: accountId }, { fields: ['phoneNumberId'] })) maps.numbers.add(n.phoneNumberId);
  const agent = previous ?? (await createAgent(tx, accountId, { name: bundled.name, description: bundled.description }));
  maps.agent = { from: source.id, to: agent.id };
  const agentChanges: string[] = [];
  if (previous) {
    if (noteChange(agentChanges, 'name', agent.name, bundled.name)) agent.name = bundled.name;
    if (noteChange(agentChanges, 'description', agent.description ?? null, bundled.description ?? null)) agent.description = bundled.description;
  }
  await putResources(tx, accountId, content, plan, maps, ids);
  for (const [kind, values] of Object.entries(bundled.settings ?? {})) {
    const config = await tx.findOne(AgentConfig, { agent, kind });
    const next = kind === 'SETTING' ? mapReferences(values, maps, `settings.${kind}`) : values;
    if (config && noteChange(agentChanges, `settings ${kind}`, config.values, next)) config.values = withSecretsKept(next, config.values);
  }
  agentChanges.push(...(await putVariables(tx, agentVariables(agent), bundled.variables, plan)));
  await putIntents(tx, agent, bundled.intents, plan, maps, ids);
  const flowsHere = await listFlows(tx, agent);
  for (const [index, f] of bundled.flows.entries()) {
    const key = `flow:${f.ref}`;
    const found = key in ids ? (flowsHere.find((flow) => flow.id === Number(ids[key])) ?? null) : null;
    const flow = found ?? (f.isDefault && !previous ? flowsHere.find((flow) => flow.isDefault)! : await createFlow(tx, agent, { name: f.name }));
    const changes: string[] = [];
    for (const [field, value] of Object.entries({ name: f.name, description: f.description ?? null, status: f.status ?? 'DRAFT' }))
      if (noteChange(changes, field, (flow as unknown as Record<string, unknown>)[field] ?? null, value)) Object.assign(flow, { [field]: value });
    const target = { owner: flowGraphOwner(flow), snapshots: flow, ownerType: 'FLOW' as const, ownerId: String(flow.id), rules: deps.flowRules };
    const at = { path: `bundle.agent.flows[${index}]`, label: `flow "${f.name}"` };
    const options = { dryRun: plan.dryRun, publish: true, message: `Imported from ${source.namespace}` };
    changes.push(...(await putGraphs(tx, { ...target, ...at }, f, maps, options)).changes);
    planItem(plan, key, { kind: 'flow', name: f.name, sourceId: f.ref, id: flow.id }, found ? changes : undefined);
  }
  await tx.flush();
  await connectChannels(tx, accountId, bundled.channels ?? [], agent.id, plan);
  const kept = previous ? await settleStale(tx, scopeOf(agent), plan, ids, new Set(Object.keys(plan.ids)), !!deps.prune) : {};
  const item = { kind: 'agent' as const, name: agent.name, sourceId: source.id, id: agent.id };
  return finishImport(tx, accountId, prior, plan, item, previous ? agentChanges : undefined, kept);
}
