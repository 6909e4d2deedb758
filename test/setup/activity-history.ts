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
  /** A local activity (its marker records no input). */
  local?: boolean;
}

const decode = (payloads?: temporal.api.common.v1.IPayloads | null): unknown =>
  payloads?.payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads.payloads[0]) : undefined;

/**
 * The activities of a workflow execution, in the order they were scheduled (a local activity: when its marker was
 * recorded), `types` only when given.
 */
export async function recordedActivities(temporalWorkflowId: string, types?: string[]): Promise<RecordedActivity[]> {
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
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = decode(marker.details?.data) as { activity_type: string; attempt: number };
      byScheduledEvent.set(String(event.eventId), {
        type: data.activity_type,
        input: undefined,
        attempts: data.attempt,
        local: true,
        ...(marker.failure ? { failure: marker.failure.message ?? '' } : { result: decode(marker.details?.result) }),
      });
    }
  }
  return [...byScheduledEvent.values()].filter((a) => !types || types.includes(a.type));
}
