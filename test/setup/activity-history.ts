/** The activities of a run as its Temporal history records them (what the Temporal UI shows), for tests. */
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { harness } from './harness.js';

export interface RecordedActivity {
  type: string;
  input: unknown;
  /** The result of a completed activity. */
  result?: unknown;
  /** The failure message of a failed activity. */
  failure?: string;
  /** Attempts made (the last attempt's number). */
  attempts: number;
}

const decode = (payloads?: temporal.api.common.v1.IPayloads | null): unknown =>
  payloads?.payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads.payloads[0]) : undefined;

/** The (non-local) activities of a workflow execution, in the order they were scheduled. */
export async function recordedActivities(temporalWorkflowId: string): Promise<RecordedActivity[]> {
  const history = await harness().env.client.workflow.getHandle(temporalWorkflowId).fetchHistory();
  const byScheduledEvent = new Map<string, RecordedActivity>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) byScheduledEvent.set(String(event.eventId), { type: scheduled.activityType!.name!, input: decode(scheduled.input), attempts: 0 });
    const started = event.activityTaskStartedEventAttributes;
    if (started) byScheduledEvent.get(String(started.scheduledEventId))!.attempts = started.attempt!;
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) byScheduledEvent.get(String(completed.scheduledEventId))!.result = decode(completed.result);
    const failed = event.activityTaskFailedEventAttributes;
    if (failed) byScheduledEvent.get(String(failed.scheduledEventId))!.failure = failed.failure?.message ?? '';
  }
  return [...byScheduledEvent.values()];
}
