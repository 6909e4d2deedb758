/**
 * The scheduled time of a run a Temporal Schedule started. Temporal names each run it starts after the schedule
 * action's workflow id, with `-<scheduled time>` (RFC 3339, UTC, whole seconds) appended: a fire, a backfilled
 * occurrence and a trigger all do, so the run reads its time from its own workflow id, deterministically.
 */
const SUFFIX = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/;

/** The scheduled time in a schedule-started run's workflow id, ISO 8601 (`2026-11-28T09:00:00.000Z`); null if none. */
export function scheduledTimeOf(runWorkflowId: string): string | null {
  const match = SUFFIX.exec(runWorkflowId);
  if (!match) return null;
  const time = new Date(match[1]!);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/**
 * A scheduled run's trigger payload with its scheduled time (`scheduledTime`) when `runWorkflowId` carries one; the
 * payload itself otherwise. A retry of a scheduled run is given its original's payload so.
 */
export function withScheduledTime(triggerPayload: unknown, runWorkflowId: string): unknown {
  const scheduledTime = scheduledTimeOf(runWorkflowId);
  if (!scheduledTime || typeof triggerPayload !== 'object' || triggerPayload === null || Array.isArray(triggerPayload)) return triggerPayload;
  return { ...triggerPayload, scheduledTime };
}
