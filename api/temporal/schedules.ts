/**
 * Schedule operations of a workflow (extensions beside SPEC's workflows): backfill the occurrences of a window through
 * Temporal's schedule backfill, trigger a run now, and the schedules' next times for `GET /workflows/{id}`. Only an
 * ACTIVE workflow with a SCHEDULED_TRIGGER node in its live graph has a schedule to operate (409 otherwise).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Automation } from '../../db/automations/automation.entity.js';
import { scheduledNodes, scheduleSource } from '../../db/automations/schedules.service.js';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import { automationScheduleId } from '../../lib/schedules/automation-schedules.js';
import {
  backfill,
  describeSchedules,
  matchingTimes,
  trigger,
  type Overlap,
  type ScheduleView,
} from '../../integrations/temporal/schedule-operations.js';

/** Longest window one backfill covers, and most occurrences it runs. */
export const BACKFILL_LIMITS = { windowDays: 31, occurrences: 1000 };

export interface BackfillBody {
  from: string;
  to: string;
  overlap: Overlap;
  nodeId?: string;
}

export interface TriggerBody {
  overlap: Overlap;
  nodeId?: string;
}

interface ScheduledNode {
  nodeId: string;
  scheduleId: string;
}

/** The schedules of the live graph's SCHEDULED_TRIGGER nodes, with their state and next times. */
export async function workflowSchedules(em: EntityManager, temporal: Client, automation: Automation): Promise<ScheduleView[]> {
  const nodes = scheduledNodes(await scheduleSource(em, automation));
  if (!nodes.length) return [];
  return describeSchedules(
    temporal,
    nodes.map((n) => ({ nodeId: n.nodeId, scheduleId: automationScheduleId(automation.id, n.nodeId) })),
  );
}

/** The node whose schedule to operate: `nodeId`, or the live graph's only scheduled node. */
async function scheduledNode(em: EntityManager, automation: Automation, nodeId: string | undefined): Promise<ScheduledNode> {
  const nodes = scheduledNodes(await scheduleSource(em, automation));
  if (!nodes.length) throw new ConflictError(`Workflow ${automation.id} has no schedule: its live graph has no SCHEDULED_TRIGGER node`);
  if (automation.status !== 'ACTIVE') {
    throw new ConflictError(`Workflow ${automation.id} is ${automation.status}, so its schedules are paused: set it ACTIVE first`);
  }
  const node = nodeId === undefined && nodes.length === 1 ? nodes[0] : nodes.find((n) => n.nodeId === nodeId);
  if (!node) {
    const ids = nodes.map((n) => n.nodeId).join(', ');
    const message =
      nodeId === undefined
        ? `nodeId is required: the live graph of workflow ${automation.id} has ${nodes.length} SCHEDULED_TRIGGER nodes (${ids})`
        : `nodeId ${nodeId} is not a SCHEDULED_TRIGGER node of the live graph of workflow ${automation.id} (${ids})`;
    throw new BadRequestError(message, 'nodeId');
  }
  return { nodeId: node.nodeId, scheduleId: automationScheduleId(automation.id, node.nodeId) };
}

/**
 * Runs the occurrences the node's schedule had in [from, to] (a past window of at most 31 days and 1,000
 * occurrences): each a run started by Temporal from the schedule, its scheduled time in `{trigger_payload.scheduledTime}`.
 */
export async function backfillSchedule(em: EntityManager, temporal: Client, automation: Automation, body: BackfillBody) {
  const from = new Date(body.from);
  const to = new Date(body.to);
  if (!(to > from)) throw new BadRequestError('to must be after from', 'to');
  if (to.getTime() > Date.now()) throw new BadRequestError('to may not be in the future: a backfill runs occurrences that have passed', 'to');
  if (to.getTime() - from.getTime() > BACKFILL_LIMITS.windowDays * 86_400_000) {
    throw new BadRequestError(`The window of from to to may be at most ${BACKFILL_LIMITS.windowDays} days`, 'to');
  }
  const { nodeId, scheduleId } = await scheduledNode(em, automation, body.nodeId);
  const times = await matchingTimes(temporal, scheduleId, from, to);
  if (times.length > BACKFILL_LIMITS.occurrences) {
    const message = `The window holds ${times.length} occurrences; one backfill runs at most ${BACKFILL_LIMITS.occurrences}: narrow from and to`;
    throw new BadRequestError(message, 'to');
  }
  if (times.length) await backfill(temporal, scheduleId, from, to, body.overlap);
  return {
    workflowId: automation.id,
    nodeId,
    scheduleId,
    from: from.toISOString(),
    to: to.toISOString(),
    overlap: body.overlap,
    count: times.length,
    scheduledTimes: times.map((t) => t.toISOString()),
  };
}

/** Runs the node's schedule now: one run, its scheduled time now. */
export async function triggerSchedule(em: EntityManager, temporal: Client, automation: Automation, body: TriggerBody) {
  const { nodeId, scheduleId } = await scheduledNode(em, automation, body.nodeId);
  await trigger(temporal, scheduleId, body.overlap);
  return { workflowId: automation.id, nodeId, scheduleId, overlap: body.overlap, triggeredAt: new Date().toISOString() };
}
