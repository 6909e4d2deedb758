/** The runs an outbox event starts: for each subscribed entry node of a live graph, or the one a manual run asks for. */
import { entryMatches, nodeFactsOf } from '../nodes/registry.js';
import type { EntryCandidate, PendingEvent, Subscriber } from '../db/automations/event-subscribers.js';
import { closesLoop, triggerPayloadOf } from '../lib/events/event-match.js';
import type { Graph } from '../lib/graph/graph.js';
import { runWorkflowIdOf, type AdmissionRequest, type LegacyRunWorkflowId, type ManualRunEventPayload } from '../lib/runtime/queued-runs.js';
import { automationRunWorkflowId, type RunStartRequest } from '../lib/runtime/run-start.js';

/** The entry nodes among `candidates` that `event` starts. */
export function subscribersOf(event: PendingEvent, candidates: EntryCandidate[]): { subscribers: Subscriber[] } {
  const subscribers = candidates
    .filter((c) => c.accountId === event.accountId && entryMatches(c.node, event))
    .map((c) => ({ automationId: c.automationId, snapshotId: c.snapshotId, entry: c.node }));
  return { subscribers };
}

/** A run an event starts: its Temporal workflow id and input; or, `admitOnly`, a started run to signal. */
export type PlannedRun =
  | { runWorkflowId: string; request: RunStartRequest; admitOnly?: false }
  | { runWorkflowId: string; request: Pick<RunStartRequest, 'accountId' | 'automationId'>; admitOnly: true };

/** The run a MANUAL_RUN event asks for, exactly as the API prepared it. */
export function manualRunOf(event: PendingEvent): PlannedRun {
  const payload = event.payload as unknown as ManualRunEventPayload & LegacyRunWorkflowId;
  return { runWorkflowId: runWorkflowIdOf(payload), request: payload.request };
}

/** The run a SCHEDULED_RUN event asks to admit: it was started by its schedule and waits for the signal. */
export function scheduledRunOf(event: PendingEvent): PlannedRun {
  const payload = event.payload as unknown as AdmissionRequest & LegacyRunWorkflowId;
  return { runWorkflowId: runWorkflowIdOf(payload), request: { accountId: payload.accountId, automationId: payload.automationId }, admitOnly: true };
}

/** The run that the subscriber `sub` (one of `all`) starts for `event`, on `graph`, its live graph. */
export function eventRunOf(event: PendingEvent, sub: Subscriber, all: Subscriber[], graph: Graph): PlannedRun {
  // One run per (event, automation); an automation with several entry nodes for the event gets one per node.
  const several = all.filter((s) => s.automationId === sub.automationId).length > 1;
  const request: RunStartRequest = {
    accountId: event.accountId,
    automationId: sub.automationId,
    snapshotId: sub.snapshotId,
    graph,
    nodeFacts: nodeFactsOf(graph),
    entryNodeId: sub.entry.nodeId,
    triggerPayload: triggerPayloadOf(event),
    trigger: { type: event.type, eventId: event.id },
    chain: event.chain ?? [],
    preventedLoop: closesLoop(event.chain, sub.automationId),
  };
  return { runWorkflowId: automationRunWorkflowId(sub.automationId, `event-${event.id}${several ? `-${sub.entry.nodeId}` : ''}`), request };
}
