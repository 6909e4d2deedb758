/**
 * What agent and workflow imports share: finding what an earlier import of the same source made (to leave it as it
 * is when the bundle is the same, or update it in place when it changed), recording what this one made, and the
 * declared variables put in place.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../accounts/account.entity.js';
import { createVariable, listVariables, updateVariable, type Variable, type VariableOwner } from '../automations/variables.service.js';
import { BundleImport } from './bundle-import.entity.js';
import { planId, planItem, type ImportPlan } from './bundle-plan.js';

export interface PriorImport {
  sourceKey: string;
  before: BundleImport | null;
  /** The ids the earlier import mapped (`<kind>:<id there>` → id here); empty when there was none. */
  ids: Record<string, string | number>;
}

/** The earlier import of the bundle's source into this account, if any. */
export async function priorImport(tx: EntityManager, accountId: number, kind: BundleImport['kind'], source: { namespace: string; id: string }) {
  const sourceKey = `${source.namespace}/${source.id}`;
  const before = await tx.findOne(BundleImport, { account: accountId, kind, sourceKey });
  return { sourceKey, before, ids: before?.ids ?? {} } satisfies PriorImport;
}

/**
 * Ends an import: notes the agent or workflow itself first in the plan (`changes` undefined: created), and records what
 * the import made (`plan.ids`, and `stale`: what an earlier one made that is left here) under the bundle's source, for
 * the next import of it. Answers the plan.
 */
export async function finishImport(
  tx: EntityManager,
  accountId: number,
  prior: PriorImport,
  draft: ImportPlan,
  target: { kind: BundleImport['kind']; name: string; sourceId: string; id: string | number },
  changes: string[] | undefined,
  stale: Record<string, string | number> = {},
): Promise<ImportPlan> {
  const { kind, id } = target;
  planItem(draft, `${kind}:${target.sourceId}`, target, changes, true);
  const plan: ImportPlan = { ...draft, action: changes ? 'update' : 'create', target: { kind, id } };
  const made = Object.entries(plan.ids).filter((entry): entry is [string, string | number] => entry[1] !== null);
  const ids = { ...stale, ...Object.fromEntries(made) };
  const targetId = String(plan.target.id);
  if (prior.before) Object.assign(prior.before, { targetId, checksum: plan.checksum, ids });
  else
    tx.create(BundleImport, {
      account: tx.getReference(Account, accountId),
      kind,
      sourceKey: prior.sourceKey,
      targetId,
      checksum: plan.checksum,
      ids,
    });
  await tx.flush();
  return plan;
}

/**
 * The bundle's variables: missing ones declared, descriptions brought in step (others here are left), each noted in
 * the plan's ids as `variable:<name>` (so a later import with `prune` can remove one the bundle drops); what changed.
 */
export async function putVariables<V extends Variable>(
  tx: EntityManager,
  owner: VariableOwner<V>,
  variables: { name: string; description: string }[] | undefined,
  plan: ImportPlan,
): Promise<string[]> {
  const here = new Map((await listVariables(tx, owner)).map((v) => [v.name, v]));
  const changes: string[] = [];
  for (const v of variables ?? []) {
    const found = here.get(v.name);
    if (!found) {
      const made = await createVariable(tx, owner, v);
      planId(plan, `variable:${v.name}`, made.id, true);
      changes.push(`variable ${v.name} added`);
      continue;
    }
    planId(plan, `variable:${v.name}`, found.id, false);
    if (found.description !== (v.description ?? '')) {
      await updateVariable(tx, owner, found, { description: v.description ?? '' });
      changes.push(`variable ${v.name}: description changed`);
    }
  }
  return changes;
}
