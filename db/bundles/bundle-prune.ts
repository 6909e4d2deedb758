/**
 * What an earlier import of a bundle's source made and the bundle no longer has (a flow, intent or variable deleted
 * where it was exported, a custom tool, playbook or knowledge base no longer referenced, an incoming webhook no longer
 * named): listed in the plan as `stale` and left here, or, when the import asks (`prune`), removed in its
 * transaction and listed as `remove`. A removal the checks refuse (the default flow, an intent, variable, resource or
 * webhook something here still uses) leaves it, stale, with a conflict naming why. Tables and Objects hold rows and
 * may serve other workflows: an import never removes one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../../lib/errors.js';
import type { GraphNode } from '../../lib/graph/graph.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { deleteResource } from '../agents/agent-resources.service.js';
import type { Agent } from '../agents/agent.entity.js';
import { Flow } from '../agents/flow.entity.js';
import { deleteFlow } from '../agents/flows.service.js';
import { Intent } from '../agents/intent.entity.js';
import { deleteIntent } from '../agents/intents.service.js';
import { deleteIncomingWebhook, findWebhookOfAccount } from '../automations/incoming-webhooks.service.js';
import { deleteVariable, listVariables, type VariableOwner } from '../automations/variables.service.js';
import type { ImportPlan, PlannedItem } from './bundle-plan.js';

/** Where the import prunes: the account, the agent (for flows and intents), the owner of the variables. */
export interface PruneScope {
  accountId: number;
  agent?: Agent;
  variables: VariableOwner;
  variablesUsed: (node: GraphNode) => string[];
}

interface Stale {
  key: string;
  id: string | number;
  item: PlannedItem;
  remove: () => Promise<void>;
}

/** The kinds of `plan.ids` keys an import may remove, in the order it removes them (flows before the intents they use). */
const PRUNED = ['flow', 'intent', 'variable', 'resource', 'webhook'];

const RESOURCE_FIELDS = ['customToolIds', 'playbookIds', 'knowledgeBaseIds'];

/**
 * What in the account still names `id` in one of `fields`: its agents' flows' and its workflows' graphs (draft and
 * live), and with `settings` its agents' settings; read in the import's transaction, so what it changed counts.
 */
async function usersOf(tx: EntityManager, accountId: number, fields: string[], id: number | string, settings: boolean): Promise<string[]> {
  const nodes = fields.map(() => 's.nodes @> ?::jsonb').join(' or ');
  const inNodes = fields.map((field) => JSON.stringify([{ data: { [field]: [id] } }]));
  const inSettings = fields.map((field) => JSON.stringify({ [field]: [id] }));
  const ofSettings = settings
    ? `union select 'agent "' || a.name || '" settings' from agent_configs c join agents a on a.id = c.agent_id
         where a.account_id = ? and a.deleted_at is null and c.kind = 'SETTING' and (${fields.map(() => 'c.values @> ?::jsonb').join(' or ')})`
    : '';
  const rows = await tx.execute<{ place: string }[]>(
    `select 'agent "' || a.name || '" flow "' || f.name || '"' as place from flows f
       join agents a on a.id = f.agent_id join graph_snapshots s on s.id in (f.draft_snapshot_id, f.live_snapshot_id)
       where a.account_id = ? and a.deleted_at is null and f.deleted_at is null and (${nodes})
     union select 'workflow "' || w.name || '"' from workflows w join graph_snapshots s on s.id in (w.draft_snapshot_id, w.live_snapshot_id)
       where w.account_id = ? and w.deleted_at is null and (${nodes})
     ${ofSettings}
     order by 1`,
    [accountId, ...inNodes, accountId, ...inNodes, ...(settings ? [accountId, ...inSettings] : [])],
  );
  return rows.map((r) => r.place);
}

/** Removes what `users` (the places naming it) is empty for; a conflict naming them otherwise. */
async function unlessUsed(users: string[], remove: () => Promise<unknown>): Promise<void> {
  if (users.length) throw new ConflictError(`${users.join(', ')} still name${users.length === 1 ? 's' : ''} it`);
  await remove();
}

/** One stale key found here (undefined when it is gone already), with how to remove it. */
async function findStale(tx: EntityManager, scope: PruneScope, key: string, id: string | number): Promise<Stale | undefined> {
  const [kind, ...rest] = key.split(':');
  const ref = rest.join(':');
  const sourceId = /^\d+$/.test(ref) ? Number(ref) : ref;
  const stale = (itemKind: string, name: string, remove: () => Promise<void>): Stale => ({
    key,
    id,
    item: { kind: itemKind, name, sourceId, id },
    remove,
  });
  switch (kind) {
    case 'flow': {
      const flow = scope.agent && (await tx.findOne(Flow, { id: Number(id), agent: scope.agent, deletedAt: null }));
      return flow ? stale('flow', flow.name, () => deleteFlow(tx, flow)) : undefined;
    }
    case 'intent': {
      const intent = scope.agent && (await tx.findOne(Intent, { id: Number(id), agent: scope.agent }));
      return intent ? stale('intent', intent.name, () => deleteIntent(tx, intent)) : undefined;
    }
    case 'variable': {
      const variable = (await listVariables(tx, scope.variables)).find((v) => v.id === Number(id));
      return variable ? stale('variable', variable.name, () => deleteVariable(tx, scope.variables, variable, scope.variablesUsed)) : undefined;
    }
    case 'resource': {
      const resource = await tx.findOne(AgentResource, { id: Number(id), account: scope.accountId });
      if (!resource) return undefined;
      const remove = async () =>
        unlessUsed(await usersOf(tx, scope.accountId, RESOURCE_FIELDS, resource.id, true), () => deleteResource(tx, resource));
      return stale(resource.kind, resource.name, remove);
    }
    case 'webhook': {
      const webhook = await findWebhookOfAccount(tx, scope.accountId, String(id));
      if (!webhook) return undefined;
      const remove = async () =>
        unlessUsed(await usersOf(tx, scope.accountId, ['triggerByWebhookIds'], webhook.id, false), () =>
          deleteIncomingWebhook(tx, scope.accountId, webhook.id),
        );
      return stale('incomingWebhook', webhook.name, remove);
    }
    default:
      return undefined;
  }
}

/**
 * The keys of `before` (what the earlier import recorded) that `keys` (this bundle's) lacks, found here: listed as
 * `stale`, or with `prune` removed and listed as `remove`. Answers what stays recorded of them (the ids of what is
 * left here, for a later import with `prune`).
 */
export async function settleStale(
  tx: EntityManager,
  scope: PruneScope,
  plan: ImportPlan,
  before: Record<string, string | number>,
  keys: Set<string>,
  prune: boolean,
): Promise<Record<string, string | number>> {
  await tx.flush();
  const gone = Object.entries(before)
    .filter(([key]) => !keys.has(key) && PRUNED.includes(key.split(':')[0]))
    .sort(([a], [b]) => PRUNED.indexOf(a.split(':')[0]) - PRUNED.indexOf(b.split(':')[0]));
  const kept: Record<string, string | number> = {};
  for (const [key, id] of gone) {
    const found = await findStale(tx, scope, key, id);
    if (!found) continue;
    if (!prune) {
      plan.stale.push(found.item);
      kept[key] = id;
      continue;
    }
    try {
      await found.remove();
      plan.remove.push(found.item);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      plan.stale.push(found.item);
      kept[key] = id;
      plan.conflicts.push(
        `${found.item.kind} "${found.item.name}" is no longer in the bundle but cannot be removed: ${error.message}: left as it is`,
      );
    }
  }
  return kept;
}
