/**
 * Imports a workflow bundle (workflow-bundle.ts) in the caller's transaction: its incoming webhooks anew (new ids and
 * URLs, new tokens: listed to connect), the workflow (DRAFT: inactive; the caller activates it when asked), its variables,
 * and its graphs with their references mapped, the live one published as version 1, each through the save-time
 * checks. A workflow imported from the same bundle before is left as it is.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import { normalize, type Graph } from '../../lib/graph/graph.js';
import { triggerTypeOf } from '../../lib/graph/workflow-nodes.js';
import { Account } from '../accounts/account.entity.js';
import { automationGraphOwner } from '../automations/automation-graph-owner.js';
import type { Automation } from '../automations/automation.entity.js';
import { createAutomation } from '../automations/automations.service.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { createIncomingWebhook } from '../automations/incoming-webhooks.service.js';
import { draftGraph, promoteDraft } from '../automations/snapshots.js';
import { automationVariables, createVariable } from '../automations/variables.service.js';
import { BundleImport } from './bundle-import.entity.js';
import { checkImportedGraph, mapGraph, type ImportMapping, type ImportPlan, type ReferenceMaps } from './bundle-plan.js';

type BundledGraph = { nodes: Omit<Graph['nodes'][number], 'edges'>[]; edges: Graph['edges'] };

export interface WorkflowBundleContent {
  source: { namespace: string; id: string };
  workflow: {
    name: string;
    description: string | null;
    concurrencyLimit: number | null;
    variables: { name: string; description: string }[];
    draft: BundledGraph;
    live: BundledGraph | null;
  };
  webhooks: { ref: string; name: string; description: string | null; useAuthentication: boolean }[];
}

const asGraph = (g: BundledGraph): Graph => normalize({ nodes: g.nodes.map((n) => ({ ...n, edges: [] })) as Graph['nodes'], edges: g.edges ?? [] });

async function setDraft(em: EntityManager, automation: Automation, graph: Graph): Promise<void> {
  const { snapshot } = await draftGraph(em, automation);
  snapshot.nodes = graph.nodes;
  snapshot.edges = graph.edges;
  automation.triggerType = triggerTypeOf(graph);
  await em.flush();
}

export async function importWorkflow(
  tx: EntityManager,
  accountId: number,
  content: WorkflowBundleContent,
  plan: ImportPlan,
  deps: { rules: GraphRules; mapping: ImportMapping },
): Promise<ImportPlan> {
  const { source, workflow } = content;
  if (!source?.id || !workflow?.name || !workflow.draft)
    throw new BadRequestError('Not a workflow bundle: source, workflow and workflow.draft are required', 'bundle');
  const sourceKey = `${source.namespace}/${source.id}`;
  const before = await tx.findOne(BundleImport, { account: accountId, kind: 'workflow', sourceKey });
  if (before?.checksum === plan.checksum) return { ...plan, action: 'unchanged', target: { kind: 'workflow', id: Number(before.targetId) } };
  const maps: ReferenceMaps = { intents: new Map(), resources: new Map(), webhooks: new Map(), mapping: deps.mapping, connect: plan.connect };
  for (const w of content.webhooks ?? []) {
    const { webhook } = await createIncomingWebhook(tx, accountId, {
      name: w.name,
      description: w.description,
      useAuthentication: w.useAuthentication,
    });
    maps.webhooks.set(w.ref, webhook.id);
    plan.create.push({ kind: 'incomingWebhook', name: w.name, sourceId: w.ref, id: webhook.id });
    plan.ids[`webhook:${w.ref}`] = webhook.id;
    plan.connect.push({
      reference: `webhook:${w.ref}`,
      where: 'webhooks',
      message: `incoming webhook "${w.name}" has a new URL here (GET /incoming-webhooks/{id})${w.useAuthentication ? ' and a new token (rotate it to read it)' : ''}: point its senders at it`,
    });
  }
  const automation = await createAutomation(tx, accountId, {
    name: workflow.name,
    description: workflow.description,
    concurrencyLimit: workflow.concurrencyLimit,
  });
  plan.create.unshift({ kind: 'workflow', name: automation.name, sourceId: source.id, id: automation.id });
  plan.ids[`workflow:${source.id}`] = automation.id;
  for (const v of workflow.variables ?? []) await createVariable(tx, automationVariables(automation), v);
  const owner = automationGraphOwner(automation);
  const draft = mapGraph(asGraph(workflow.draft), maps, 'draft');
  if (workflow.live) {
    const live = mapGraph(asGraph(workflow.live), maps, 'live');
    await checkImportedGraph(tx, owner, deps.rules, live, 'bundle.workflow.live', `workflow "${workflow.name}" (live)`);
    await setDraft(tx, automation, live);
    await promoteDraft(tx, automation, 'WORKFLOW', String(automation.id), { message: `Imported from ${source.namespace}` });
  }
  await checkImportedGraph(tx, owner, deps.rules, draft, 'bundle.workflow.draft', `workflow "${workflow.name}" (draft)`);
  await setDraft(tx, automation, draft);
  const account = tx.getReference(Account, accountId);
  if (before) {
    plan.conflicts.push(
      `workflow ${source.id} was imported before (as ${before.targetId}) from another version of this bundle: imported again as a new workflow`,
    );
    before.targetId = String(automation.id);
    before.checksum = plan.checksum;
  } else tx.create(BundleImport, { account, kind: 'workflow', sourceKey, targetId: String(automation.id), checksum: plan.checksum });
  await tx.flush();
  return { ...plan, target: { kind: 'workflow', id: automation.id } };
}
