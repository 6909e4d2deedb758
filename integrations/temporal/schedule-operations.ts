/**
 * Operations on the Temporal Schedule of one SCHEDULED_TRIGGER node (extensions beside SPEC's workflows): its state and
 * next times, the occurrences its spec has in a window, a backfill of that window and a trigger. Each occurrence is a
 * run Temporal starts from the schedule's own action, so it is a scheduled run like any other (admission, ledger,
 * logs), shown in the Temporal UI under the schedule's recent actions.
 */
import { ScheduleNotFoundError, ServiceError, isGrpcServiceError, type Client, type ScheduleOverlapPolicy } from '@temporalio/client';
import { msNumberToTs, tsToDate } from '@temporalio/common/lib/time.js';
import { ConflictError } from '../../lib/errors.js';
import { SchedulesUnavailableError } from '../../lib/schedules/automation-schedules.js';

/** What to do with an occurrence whose time comes while the schedule's previous run still runs (Temporal's policies). */
export const OVERLAP_POLICIES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;
export type Overlap = (typeof OVERLAP_POLICIES)[number];

const policyOf = (overlap: Overlap) => overlap.toUpperCase().replace('-', '_') as ScheduleOverlapPolicy;

/** A schedule as `GET /workflows/{id}` shows it; `paused` and `nextTimes` are null when Temporal did not answer. */
export interface ScheduleView {
  nodeId: string;
  scheduleId: string;
  paused: boolean | null;
  nextTimes: string[] | null;
}

/**
 * Each schedule's state and next times (up to 10 each). A schedule that does not exist (a workflow never set ACTIVE)
 * is left out; one Temporal does not answer for shows nulls, so the workflow is still answered while Temporal is away.
 */
export async function describeSchedules(temporal: Client, schedules: { nodeId: string; scheduleId: string }[]): Promise<ScheduleView[]> {
  const views = await Promise.all(
    schedules.map(async ({ nodeId, scheduleId }): Promise<ScheduleView | null> => {
      try {
        const { state, info } = await temporal.schedule.getHandle(scheduleId).describe();
        return { nodeId, scheduleId, paused: state.paused, nextTimes: info.nextActionTimes.map((t) => t.toISOString()) };
      } catch (error) {
        return error instanceof ScheduleNotFoundError ? null : { nodeId, scheduleId, paused: null, nextTimes: null };
      }
    }),
  );
  return views.filter((v) => v !== null);
}

/** The times the schedule's spec matches in [from, to], as Temporal computes them (its time zone, window, dates). */
export function matchingTimes(temporal: Client, scheduleId: string, from: Date, to: Date): Promise<Date[]> {
  return call(scheduleId, async () => {
    const answer = await temporal.workflowService.listScheduleMatchingTimes({
      namespace: temporal.options.namespace,
      scheduleId,
      startTime: msNumberToTs(from.getTime()),
      endTime: msNumberToTs(to.getTime()),
    });
    return (answer.startTime ?? []).map((t) => tsToDate(t));
  });
}

/** Runs the schedule's occurrences in [from, to] now, as if their times had just come, under `overlap`. */
export function backfill(temporal: Client, scheduleId: string, from: Date, to: Date, overlap: Overlap): Promise<void> {
  return call(scheduleId, () => temporal.schedule.getHandle(scheduleId).backfill({ start: from, end: to, overlap: policyOf(overlap) }));
}

/** Takes the schedule's action now, under `overlap`. */
export function trigger(temporal: Client, scheduleId: string, overlap: Overlap): Promise<void> {
  return call(scheduleId, () => temporal.schedule.getHandle(scheduleId).trigger(policyOf(overlap)));
}

/** A missing schedule is 409 (its automation's schedules are out of step); Temporal not answering is 503. */
async function call<T>(scheduleId: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError || (isGrpcServiceError(error) && error.code === 5)) {
      throw new ConflictError(`Temporal has no schedule ${scheduleId}: set the workflow ACTIVE again to recreate it`);
    }
    if (error instanceof ServiceError || isGrpcServiceError(error)) {
      const cause = error instanceof ServiceError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
      throw new SchedulesUnavailableError(`Temporal did not answer the schedule request; retry later (${cause})`);
    }
    throw error;
  }
}
