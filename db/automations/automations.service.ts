/**
 * Workflows: metadata, status, soft delete, the draft snapshot and publishing. Status changes, publishing and deletes
 * also bring the workflow's Temporal Schedules in line (schedules.service.ts), in the same transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';
import { GraphSnapshot } from './graph-snapshot.entity.js';
import { Automation, type AutomationStatus } from './automation.entity.js';
import { newObjectId } from '../tables/object-id.js';
import { subscriptionOf, unsubscribeAll, type TriggerProvider } from './external-triggers.js';
import { unindexAutomation } from './trigger-subscriptions.js';
import { changeWithSchedules, type AutomationSchedules } from './schedules.service.js';
import { draftGraph, listSnapshots, newDraft, promoteDraft as promoteSnapshot, type Publication } from './snapshots.js';

export type AutomationListStatus = 'ACTIVE' | 'DELETED' | 'DRAFT';

export interface AutomationInput {
  name: string;
  description?: string | null;
  status?: AutomationStatus;
  /** Runs in flight at once (null: none of its own); README, Admission control. */
  concurrencyLimit?: number | null;
}

export type AutomationPatch = Partial<AutomationInput>;

/** List item: every field of SPEC.md present, nullable ones as null. */
export function automationListItem(w: Automation) {
  return {
    id: w.id,
    name: w.name,
    description: w.description ?? null,
    status: w.deletedAt ? 'DELETED' : w.status,
    triggerType: w.triggerType ?? null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    runsCount: w.runsCount,
    runsFailedCount: w.runsFailedCount,
    lastRunDate: w.lastRunDate ? w.lastRunDate.toISOString() : null,
  };
}

export function automationDetail(w: Automation, graph?: Graph) {
  return {
    ...automationListItem(w),
    liveSnapshotId: w.liveSnapshotId ?? null,
    draftSnapshotId: w.draftSnapshotId,
    concurrencyLimit: w.concurrencyLimit ?? null,
    ...(graph ? { nodes: graph.nodes } : {}),
  };
}

export async function listAutomations(em: EntityManager, accountId: number, status?: AutomationListStatus): Promise<Automation[]> {
  const where =
    status === 'DELETED'
      ? { account: accountId, deletedAt: { $ne: null } }
      : status
        ? { account: accountId, deletedAt: null, status }
        : { account: accountId, deletedAt: null };
  return em.find(Automation, where, { orderBy: { id: 'asc' } });
}

/** A live (not deleted) workflow of the account, or 404. */
export async function findAutomation(em: EntityManager, accountId: number, id: number): Promise<Automation> {
  const automation = await em.findOne(Automation, { id, account: accountId, deletedAt: null });
  if (!automation) throw new NotFoundError(`Workflow ${id} not found`);
  return automation;
}

export async function createAutomation(em: EntityManager, accountId: number, input: AutomationInput): Promise<Automation> {
  return em.transactional(async (tx) => {
    const account = tx.getReference(Account, accountId);
    const draftSnapshotId = newObjectId();
    const automation = tx.create(Automation, {
      account,
      name: input.name.trim(),
      description: input.description ?? null,
      status: input.status ?? 'DRAFT',
      concurrencyLimit: input.concurrencyLimit ?? null,
      draftSnapshotId,
    });
    await tx.flush();
    newDraft(tx, account, 'WORKFLOW', String(automation.id), draftSnapshotId);
    await tx.flush();
    return automation;
  });
}

export interface UpdateOptions {
  /**
   * Setting status ACTIVE publishes the draft first when it differs from the live graph (or nothing is live yet),
   * in the same transaction: the API does, so an ACTIVE workflow runs what its user built; an AUTOMATION_STATUS node
   * does not.
   */
  publishDraft?: boolean;
  /** Who publishes it, when it is published. */
  publication?: Publication;
}

function applyPatch(automation: Automation, patch: AutomationPatch): void {
  if (patch.name !== undefined) automation.name = patch.name.trim();
  if (patch.description !== undefined) automation.description = patch.description;
  if (patch.status !== undefined) automation.status = patch.status;
  if (patch.concurrencyLimit !== undefined) automation.concurrencyLimit = patch.concurrencyLimit;
}

/**
 * Updates metadata or status. A status change pauses (DRAFT, PAUSED, ARCHIVED) or resumes and refreshes (ACTIVE)
 * the workflow's schedules, a new name renews their notes; if Temporal cannot follow, nothing is changed.
 */
export async function updateAutomation(
  em: EntityManager,
  automation: Automation,
  patch: AutomationPatch,
  schedules: AutomationSchedules,
  options: UpdateOptions = {},
): Promise<Automation> {
  if (patch.status === undefined && patch.name === undefined) {
    applyPatch(automation, patch);
    await em.flush();
    return automation;
  }
  return changeWithSchedules(em, automation, schedules, async (tx, locked) => {
    applyPatch(locked, patch);
    if (patch.status === 'ACTIVE' && options.publishDraft && !(await draftIsLive(tx, locked))) await promoteDraft(tx, locked, options.publication);
    return locked;
  });
}

/**
 * Soft delete: the workflow stops receiving events and is listed only under status DELETED. Its schedules are
 * deleted and the trigger subscriptions of the EXTERNAL_TRIGGER nodes of its draft and live graphs removed in the
 * same transaction: if Temporal or the provider cannot follow, the workflow is not deleted.
 */
export async function deleteAutomation(
  em: EntityManager,
  automation: Automation,
  schedules: AutomationSchedules,
  triggers?: TriggerProvider,
): Promise<void> {
  const snapshotIds = [automation.draftSnapshotId, automation.liveSnapshotId].filter((id): id is string => !!id);
  const snapshots = await em.find(GraphSnapshot, { id: { $in: snapshotIds } });
  const subscriptions = [...new Set(snapshots.flatMap((s) => s.nodes.map(subscriptionOf)).filter((id): id is string => !!id))];
  await changeWithSchedules(
    em,
    automation,
    schedules,
    async (tx, locked) => {
      locked.deletedAt = new Date();
      locked.status = 'DRAFT';
      await unindexAutomation(tx, locked.id);
    },
    () => unsubscribeAll(triggers, subscriptions, 'The workflow cannot be deleted with its trigger subscriptions', 'workflowId'),
  );
}

export { draftGraph } from './snapshots.js';

/** Copies the draft into a new immutable live snapshot and makes it the workflow's live one (not flushed). */
const promoteDraft = (tx: EntityManager, automation: Automation, publication?: Publication) =>
  promoteSnapshot(tx, automation, 'WORKFLOW', String(automation.id), publication);

/** Whether the live snapshot holds exactly the draft's graph. */
async function draftIsLive(tx: EntityManager, automation: Automation): Promise<boolean> {
  if (!automation.liveSnapshotId) return false;
  const [draft, live] = await Promise.all([draftGraph(tx, automation), tx.findOneOrFail(GraphSnapshot, { id: automation.liveSnapshotId })]);
  return JSON.stringify([draft.graph.nodes, draft.graph.edges]) === JSON.stringify([live.nodes, live.edges]);
}

/** More work in the transaction that saves a draft edit (an ACTIVE workflow publishes it); its failure undoes the edit. */
export type AfterSave = (tx: EntityManager) => Promise<void>;

/**
 * What a draft edit (node or edge) does after saving: on an ACTIVE workflow the edit goes live at once, published
 * with its schedules in the edit's transaction, so a node added to or changed in an ACTIVE workflow receives its
 * events and schedules right away, and nothing is saved (a new trigger subscription is removed again) when Temporal
 * cannot follow. DRAFT workflows publish explicitly.
 */
export function publishIfActive(automation: Automation, schedules: AutomationSchedules, publication?: Publication): AfterSave | undefined {
  if (automation.status !== 'ACTIVE') return undefined;
  return async (tx) => {
    await publishAutomation(tx, automation, schedules, publication);
  };
}

/**
 * Promotes the draft to a new immutable live snapshot; runs execute live snapshots only. The schedules follow the
 * new live graph: removed scheduled nodes lose theirs; on an ACTIVE workflow added nodes get one and the others are
 * updated; an inactive workflow's existing schedules are updated and stay paused.
 */
export async function publishAutomation(
  em: EntityManager,
  automation: Automation,
  schedules: AutomationSchedules,
  publication?: Publication,
): Promise<GraphSnapshot> {
  return changeWithSchedules(em, automation, schedules, (tx, locked) => promoteDraft(tx, locked, publication));
}

export async function listAutomationSnapshots(em: EntityManager, automation: Automation) {
  return listSnapshots(em, automation, 'WORKFLOW', String(automation.id));
}
