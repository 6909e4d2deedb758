/**
 * Imports a workflow bundle (workflow-bundle.ts) in the caller's transaction: the Tables and Objects its nodes name
 * (found here by name; missing ones created from their schema when the bundle carries it, listed to connect when
 * not), its incoming webhooks anew (new ids, URLs and tokens: listed to connect), the workflow (DRAFT: inactive; the
 * caller activates it when asked), its variables, and its graphs with their references mapped, the live one
 * published as a version, each through the save-time checks. A changed bundle of a workflow imported before updates it
 * in place (a workflow that is not DRAFT here keeps its live graph: its draft takes the bundle's, to publish) and lists
 * the webhooks and variables the earlier one made that it lacks (removed with `prune`: bundle-prune.ts); the same
 * bundle again changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import { automationGraphOwner } from '../automations/automation-graph-owner.js';
import { Automation } from '../automations/automation.entity.js';
import { createAutomation } from '../automations/automations.service.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { createIncomingWebhook, findWebhookOfAccount, webhookUrl } from '../automations/incoming-webhooks.service.js';
import { automationVariables } from '../automations/variables.service.js';
import { MessagingNumber } from '../channels/messaging-number.entity.js';
import { putGraphs, type BundledGraph } from './bundle-graphs.js';
import { noteChange, planItem, referenceMaps, type ImportMapping, type ImportPlan, type ReferenceMaps } from './bundle-plan.js';
import { settleStale } from './bundle-prune.js';
import { finishImport, priorImport, putVariables } from './bundle-targets.js';
import { importTable, type BundledTable } from './table-bundle.js';

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
  tables?: BundledTable[];
}

export interface WorkflowImportDeps {
  rules: GraphRules;
  mapping: ImportMapping;
  /** The origin webhook URLs start with, to name the new ones (absent: the plan points at GET /incoming-webhooks/{id}). */
  publicBaseUrl?: string;
  /** Remove what an earlier import of this source made and the bundle no longer has (bundle-prune.ts). */
  prune?: boolean;
}

/** The keys of the bundle's webhooks and variables in the plan's ids (what an earlier import made beyond them is stale). */
function bundleKeys(content: WorkflowBundleContent): Set<string> {
  return new Set([
    ...(content.webhooks ?? []).map((w) => `webhook:${w.ref}`),
    ...(content.workflow.variables ?? []).map((v) => `variable:${v.name}`),
  ]);
}

/** The incoming webhooks: the ones an earlier import made updated, the others created anew and listed to connect. */
async function putWebhooks(
  tx: EntityManager,
  accountId: number,
  content: WorkflowBundleContent,
  plan: ImportPlan,
  maps: ReferenceMaps,
  ids: Record<string, string | number>,
  deps: WorkflowImportDeps,
) {
  for (const w of content.webhooks ?? []) {
    const key = `webhook:${w.ref}`;
    const found = key in ids ? await findWebhookOfAccount(tx, accountId, String(ids[key])) : null;
    const webhook =
      found ??
      (await createIncomingWebhook(tx, accountId, { name: w.name, description: w.description, useAuthentication: w.useAuthentication })).webhook;
    const changes: string[] = [];
    if (found)
      for (const [field, value] of Object.entries({ name: w.name, description: w.description ?? null, useAuthentication: w.useAuthentication }))
        if (noteChange(changes, field, (found as unknown as Record<string, unknown>)[field] ?? null, value)) Object.assign(found, { [field]: value });
    maps.webhooks.set(w.ref, webhook.id);
    planItem(plan, key, { kind: 'incomingWebhook', name: w.name, sourceId: w.ref, id: webhook.id }, found ? changes : undefined);
    if (found) continue;
    const url = plan.dryRun
      ? 'a new URL here'
      : `a new URL here: ${deps.publicBaseUrl ? webhookUrl(deps.publicBaseUrl, webhook.id) : `GET /incoming-webhooks/${webhook.id}`}`;
    plan.connect.push({
      reference: key,
      where: 'webhooks',
      message: `incoming webhook "${w.name}" has ${url}${w.useAuthentication ? ' and a new token (rotate it to read it)' : ''}: point its senders at it`,
    });
  }
  await tx.flush();
}

export async function importWorkflow(
  tx: EntityManager,
  accountId: number,
  content: WorkflowBundleContent,
  plan: ImportPlan,
  deps: WorkflowImportDeps,
): Promise<ImportPlan> {
  const { source, workflow } = content;
  if (!source?.id || !workflow?.name || !workflow.draft)
    throw new BadRequestError('Not a workflow bundle: source, workflow and workflow.draft are required', 'bundle');
  const prior = await priorImport(tx, accountId, 'workflow', source);
  const previous = prior.before && (await tx.findOne(Automation, { id: Number(prior.before.targetId), account: accountId, deletedAt: null }));
  const scopeOf = (automation: Automation) => ({ accountId, variables: automationVariables(automation), variablesUsed: deps.rules.variablesUsed });
  if (previous && prior.before?.checksum === plan.checksum) {
    const same = { ...plan, action: 'unchanged' as const, target: { kind: 'workflow', id: previous.id }, stale: [] };
    await settleStale(tx, scopeOf(previous), same, prior.ids, bundleKeys(content), false);
    if (!deps.prune || !same.stale.length) return same;
  }
  if (prior.before && !previous)
    plan.conflicts.push(`workflow ${source.id} was imported before as ${prior.before.targetId}, which is no longer here: imported anew`);
  const ids = previous ? prior.ids : {};
  const maps = referenceMaps(deps.mapping, plan.connect);
  for (const n of await tx.find(MessagingNumber, { account: accountId }, { fields: ['phoneNumberId'] })) maps.numbers.add(n.phoneNumberId);
  for (const t of content.tables ?? []) await importTable(tx, accountId, t, plan, maps);
  await putWebhooks(tx, accountId, content, plan, maps, ids, deps);
  const settings = { name: workflow.name, description: workflow.description ?? null, concurrencyLimit: workflow.concurrencyLimit ?? null };
  const automation = previous ?? (await createAutomation(tx, accountId, settings));
  const changes: string[] = [];
  if (previous)
    for (const [field, value] of Object.entries(settings))
      if (noteChange(changes, field, (previous as unknown as Record<string, unknown>)[field] ?? null, value))
        Object.assign(previous, { [field]: value });
  changes.push(...(await putVariables(tx, automationVariables(automation), workflow.variables, plan)));
  const target = {
    ...{
      owner: automationGraphOwner(automation),
      snapshots: automation,
      ownerType: 'WORKFLOW' as const,
      ownerId: String(automation.id),
      rules: deps.rules,
    },
    ...{ path: 'bundle.workflow', label: `workflow "${workflow.name}"` },
  };
  const publish = automation.status === 'DRAFT';
  const graphs = await putGraphs(tx, target, workflow, maps, { dryRun: plan.dryRun, publish, message: `Imported from ${source.namespace}` });
  changes.push(...graphs.changes);
  if (graphs.held)
    plan.conflicts.push(
      `workflow ${automation.id} is ${automation.status} here: its live graph is left as it is and its draft holds the bundle's live graph ` +
        `(${graphs.held.join('; ')}): publish it (POST /workflows/${automation.id}/publish) so its schedules follow`,
    );
  const kept = previous ? await settleStale(tx, scopeOf(automation), plan, ids, new Set(Object.keys(plan.ids)), !!deps.prune) : {};
  const item = { kind: 'workflow' as const, name: workflow.name, sourceId: source.id, id: automation.id };
  return finishImport(tx, accountId, prior, plan, item, previous ? changes : undefined, kept);
}
