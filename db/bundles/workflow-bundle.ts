/**
 * A workflow as a bundle (lib/bundles/bundle-format.ts): its settings, declared variables, draft and live graphs, and
 * the definitions of the incoming webhooks its nodes name (never their tokens). Ids stay the exporting account's.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealBundle, withoutSecrets, type Bundle } from '../../lib/bundles/bundle-format.js';
import type { Graph } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';
import { findAutomation } from '../automations/automations.service.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import { IncomingWebhook } from '../automations/incoming-webhook.entity.js';
import { automationVariables, listVariables } from '../automations/variables.service.js';

const bundled = (s: GraphSnapshot | null | undefined) => (s ? { nodes: s.nodes.map(({ edges: _inline, ...node }) => node), edges: s.edges } : null);

/** Ids of the incoming webhooks the graph's nodes name. */
const webhookIdsOf = (graph: Graph) =>
  graph.nodes.flatMap((n) => (Array.isArray(n.data.triggerByWebhookIds) ? (n.data.triggerByWebhookIds as unknown[]) : [])).map(String);

export async function exportWorkflow(em: EntityManager, accountId: number, workflowId: number): Promise<Bundle> {
  const automation = await findAutomation(em, accountId, workflowId);
  const account = await em.findOneOrFail(Account, { id: accountId });
  const ids = [automation.draftSnapshotId, automation.liveSnapshotId ?? []].flat();
  const snapshots = new Map((await em.find(GraphSnapshot, { id: { $in: ids } })).map((s) => [s.id, s]));
  const draft = snapshots.get(automation.draftSnapshotId);
  const live = automation.liveSnapshotId ? snapshots.get(automation.liveSnapshotId) : undefined;
  const webhookIds = [...new Set([draft, live].flatMap((s) => (s ? webhookIdsOf(s) : [])))];
  const webhooks = webhookIds.length
    ? await em.find(IncomingWebhook, { account: accountId, id: { $in: webhookIds } }, { orderBy: { id: 'asc' } })
    : [];
  const variables = await listVariables(em, automationVariables(automation));
  const removed: string[] = [];
  return sealBundle('workflow', {
    source: { namespace: account.namespace, id: String(automation.id) },
    workflow: {
      name: automation.name,
      description: automation.description ?? null,
      concurrencyLimit: automation.concurrencyLimit ?? null,
      variables: variables.map((v) => ({ name: v.name, description: v.description })),
      draft: withoutSecrets(bundled(draft), removed, '/workflow/draft'),
      live: withoutSecrets(bundled(live), removed, '/workflow/live'),
    },
    webhooks: webhooks.map((w) => ({ ref: w.id, name: w.name, description: w.description ?? null, useAuthentication: w.useAuthentication })),
    secretsRemoved: removed,
  });
}
