/**
 * A workflow as a bundle (lib/bundles/bundle-format.ts): its settings, declared variables, draft and live graphs, the
 * definitions of the incoming webhooks its nodes name (never their tokens), and the Tables and Objects its nodes name
 * (with `tables`, their schemas too: table-bundle.ts). Ids stay the exporting account's.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealBundle, withoutSecrets, type Bundle } from '../../lib/bundles/bundle-format.js';
import type { Graph } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';
import { findAutomation } from '../automations/automations.service.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import { IncomingWebhook } from '../automations/incoming-webhook.entity.js';
import { automationVariables, listVariables } from '../automations/variables.service.js';
import { DataTable } from '../tables/data-table.entity.js';
import { RecordType } from '../tables/record-type.entity.js';
import { bundledGraph } from './bundle-graphs.js';
import { bundledTable } from './table-bundle.js';

/** The values of `fields` the graph's nodes hold (lists flattened). */
const idsOf = (graphs: Graph[], fields: string[]) => [
  ...new Set(graphs.flatMap((g) => g.nodes.flatMap((n) => fields.flatMap((f) => n.data[f] ?? [])).filter((id) => id !== null))),
];

export async function exportWorkflow(em: EntityManager, accountId: number, workflowId: number, options: { tables?: boolean } = {}): Promise<Bundle> {
  const automation = await findAutomation(em, accountId, workflowId);
  const account = await em.findOneOrFail(Account, { id: accountId });
  const ids = [automation.draftSnapshotId, automation.liveSnapshotId ?? []].flat();
  const snapshots = new Map((await em.find(GraphSnapshot, { id: { $in: ids } })).map((s) => [s.id, s]));
  const draft = snapshots.get(automation.draftSnapshotId);
  const live = automation.liveSnapshotId ? snapshots.get(automation.liveSnapshotId) : undefined;
  const graphs = [draft, live].filter((s): s is GraphSnapshot => !!s);
  const webhookIds = idsOf(graphs, ['triggerByWebhookIds']).map(String);
  const webhooks = webhookIds.length
    ? await em.find(IncomingWebhook, { account: accountId, id: { $in: webhookIds } }, { orderBy: { id: 'asc' } })
    : [];
  const recordTypeIds = idsOf(graphs, ['recordTypeId', 'triggeredByRecordTypeId']).map(Number).filter(Number.isInteger);
  const ofRecordTypes = recordTypeIds.length ? await em.find(RecordType, { id: { $in: recordTypeIds }, table: { account: accountId } }) : [];
  const tableIds = [...idsOf(graphs, ['tableId', 'triggeredByTableId']).map(Number), ...ofRecordTypes.map((rt) => rt.table.id)].filter(
    Number.isInteger,
  );
  const tables = tableIds.length ? await em.find(DataTable, { account: accountId, id: { $in: tableIds } }, { orderBy: { id: 'asc' } }) : [];
  const variables = await listVariables(em, automationVariables(automation));
  const removed: string[] = [];
  const bundledTables = [];
  for (const table of tables) bundledTables.push(await bundledTable(em, table, !!options.tables));
  return sealBundle('workflow', {
    source: { namespace: account.namespace, id: String(automation.id) },
    workflow: {
      name: automation.name,
      description: automation.description ?? null,
      concurrencyLimit: automation.concurrencyLimit ?? null,
      variables: variables.map((v) => ({ name: v.name, description: v.description })),
      draft: withoutSecrets(bundledGraph(draft), removed, '/workflow/draft'),
      live: withoutSecrets(bundledGraph(live), removed, '/workflow/live'),
    },
    webhooks: webhooks.map((w) => ({ ref: w.id, name: w.name, description: w.description ?? null, useAuthentication: w.useAuthentication })),
    tables: bundledTables,
    secretsRemoved: removed,
  });
}
