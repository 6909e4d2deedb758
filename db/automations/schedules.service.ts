/**
 * The Temporal Schedules of an automation follow its live snapshot while it is ACTIVE and not deleted: one schedule per
 * SCHEDULED_TRIGGER node of the live graph. An automation that is DRAFT, PAUSED or ARCHIVED keeps its schedules,
 * paused with a note saying why; a deleted automation, or a node a publish removed, has none. The schedules themselves
 * are made through `AutomationSchedules` (lib/schedules), handed in by the caller.
 *
 * Changes run in one transaction that locks the automation's row, so concurrent changes of one automation queue up; the
 * schedules are brought in line once the change is flushed and before it commits. A Temporal failure therefore rolls
 * the change back, and the schedule requests that had already succeeded are undone (best effort), so nothing is
 * half-written; a transaction that fails after the schedules changed restores them too.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';
import { automationScheduleId, type AutomationSchedules, type ScheduleState } from '../../lib/schedules/automation-schedules.js';
import { GraphSnapshot } from './graph-snapshot.entity.js';
import { Automation, type AutomationStatus } from './automation.entity.js';

export type { AutomationSchedules };

/** What an automation's schedules depend on, read at one moment (before or after a change). */
export interface ScheduleSource {
  accountId: number;
  automationId: number;
  name: string;
  status: AutomationStatus;
  deleted: boolean;
  /** The live snapshot, when the automation has been published. */
  live: { snapshotId: string; graph: Graph } | null;
}

export async function scheduleSource(em: EntityManager, automation: Automation): Promise<ScheduleSource> {
  const snapshot = automation.liveSnapshotId ? await em.findOne(GraphSnapshot, { id: automation.liveSnapshotId }) : null;
  return {
    accountId: automation.account.id,
    automationId: automation.id,
    name: automation.name,
    status: automation.status,
    deleted: !!automation.deletedAt,
    live: snapshot ? { snapshotId: snapshot.id, graph: { nodes: snapshot.nodes, edges: snapshot.edges } } : null,
  };
}

/** The SCHEDULED_TRIGGER nodes of the live graph, each of which has a Temporal Schedule. */
export function scheduledNodes(source: ScheduleSource): GraphNode[] {
  if (source.deleted || !source.live) return [];
  return source.live.graph.nodes.filter((n) => n.type === 'SCHEDULED_TRIGGER');
}

function stateOf(source: ScheduleSource, node: GraphNode): ScheduleState {
  // The note is shown in the Temporal UI, in SPEC.md's words.
  const named = `workflow "${source.name}" (${source.automationId})`;
  return source.status === 'ACTIVE'
    ? { paused: false, note: `Node "${node.alias}" of ${named}, on its live snapshot` }
    : { paused: true, note: `Paused: ${named} is ${source.status}; setting it ACTIVE resumes node "${node.alias}"` };
}

/** Moves Temporal from the schedules of `from` to those of `to`; `onDone` counts each request that succeeded. */
async function apply(schedules: AutomationSchedules, from: ScheduleSource, to: ScheduleSource, onDone: () => void = () => {}): Promise<void> {
  const wanted = scheduledNodes(to);
  const kept = new Set(wanted.map((n) => n.nodeId));
  for (const node of scheduledNodes(from)) {
    if (kept.has(node.nodeId)) continue;
    await schedules.delete(automationScheduleId(from.automationId, node.nodeId));
    onDone();
  }
  for (const node of wanted) {
    const target = {
      accountId: to.accountId,
      automationId: to.automationId,
      automationName: to.name,
      snapshotId: to.live!.snapshotId,
      graph: to.live!.graph,
      node,
    };
    // Only an ACTIVE automation creates schedules; an inactive one updates (and pauses) those it already has.
    await schedules.save(target, stateOf(to, node), { onlyIfExists: to.status !== 'ACTIVE' });
    onDone();
  }
}

/**
 * Brings the schedules from what `before` implies to what `after` does. On failure the requests that succeeded are
 * undone before the error is rethrown. Answers a best-effort undo for a caller whose transaction fails later.
 */
export async function reconcileSchedules(
  schedules: AutomationSchedules,
  before: ScheduleSource,
  after: ScheduleSource,
): Promise<() => Promise<void>> {
  const undo = () =>
    apply(schedules, after, before).catch(() => {
      // The failure that made the change fail is the one to report.
    });
  let done = 0;
  try {
    await apply(schedules, before, after, () => done++);
  } catch (error) {
    if (done) await undo();
    throw error;
  }
  return undo;
}

/**
 * Runs `change` on a workflow in a transaction holding its row lock (the workflow is re-read first, so the change
 * applies to its latest state), flushes, reconciles the schedules, then runs `then` (work that cannot be undone,
 * such as removing trigger subscriptions). A deleted workflow answers 404.
 */
export async function changeWithSchedules<T>(
  em: EntityManager,
  automation: Automation,
  schedules: AutomationSchedules,
  change: (tx: EntityManager, automation: Automation) => Promise<T>,
  then?: () => Promise<void>,
): Promise<T> {
  let restore: (() => Promise<void>) | undefined;
  try {
    return await em.transactional(async (tx) => {
      const locked = await tx.findOne(Automation, { id: automation.id, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!locked) throw new NotFoundError(`Workflow ${automation.id} not found`);
      const before = await scheduleSource(tx, locked);
      const result = await change(tx, locked);
      await tx.flush();
      restore = await reconcileSchedules(schedules, before, await scheduleSource(tx, locked));
      await then?.();
      return result;
    });
  } catch (error) {
    await restore?.();
    throw error;
  }
}
