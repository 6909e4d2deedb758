/**
 * Reading run logs out of Temporal's own records: a visibility entry (or a describe answer) becomes a log item, and
 * the event history of a run that has no result (still running, cancelled, terminated) gives its node results.
 * Only Temporal data is read here: no I/O, no database.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { Graph } from '../../lib/graph/graph.js';
import {
  nodeSummary,
  type ExecuteNodeInput,
  type NodeOutcome,
  type NodeResult,
  type RunAutomationInput,
  type RunMemo,
} from '../../lib/runtime/contract.js';
import { AI_CALL_ACTIVITY, isNodeActivity, leavesNodeInFlight } from '../../lib/runtime/node-activities.js';

export type RawExecutionInfo = NonNullable<Awaited<ReturnType<Client['workflowService']['listWorkflowExecutions']>>['executions']>[number];
type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
type Timestamp = RawExecutionInfo['startTime'];

export type LogStatus = 'running' | 'successful' | 'failed' | 'cancelled';

/** One run as `/workflows/{id}/logs` lists it (SPEC "Workflow run log", plus `status`, trigger and Temporal ids). */
export interface RunLog {
  id: string;
  status: LogStatus;
  successful: boolean;
  started_at: string;
  completed_at: string | null;
  /** Milliseconds; for a running run, the time elapsed so far. */
  duration: number;
  operations: number;
  ai_credits: number;
  error: string | null;
  insufficient_credits: boolean;
  prevented_loop: boolean;
  trigger_type: string | null;
  temporal_workflow_id: string;
  temporal_run_id: string;
}

/** One executed node of a log's `node_results`. */
export interface LogNodeResult {
  node_id: string;
  alias: string;
  type: string;
  success: boolean;
  error: string | null;
  ai_credits: number;
  created_at: string | null;
  output: unknown;
}

/** Temporal's WorkflowExecutionStatus codes, by what a log calls them (Failed, Terminated and TimedOut all fail). */
const STATUS_BY_CODE: Record<number, LogStatus> = { 1: 'running', 2: 'successful', 3: 'failed', 4: 'cancelled', 5: 'failed', 7: 'failed' };
const ENDED_WITHOUT_MEMO: Record<number, string> = { 4: 'Cancelled', 5: 'Terminated', 7: 'Timed out' };

/** Decodes a payload written by the default data converter (memo fields, search attributes, inputs, results). */
export function decode<T = unknown>(payload: Payload | null | undefined): T | undefined {
  if (!payload) return undefined;
  return defaultPayloadConverter.fromPayload<T>(payload);
}

function decodeFields(fields: Record<string, Payload> | null | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields ?? {}).map(([name, payload]) => [name, decode(payload)]));
}

function toDate(ts: Timestamp): Date | null {
  // `seconds` is a protobuf Long, whose toString is its decimal value.
  return ts ? new Date(Number(String(ts.seconds ?? 0)) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)) : null;
}

/** The search attributes of a run (AgentryAccountId, AgentryAutomationId, AgentryTriggerType, …). */
export function searchAttributes(info: RawExecutionInfo): Record<string, unknown> {
  const values = decodeFields(info.searchAttributes?.indexedFields);
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]));
}

export function runLog(info: RawExecutionInfo, now = Date.now()): RunLog {
  const code = Number(info.status ?? 0);
  const status = STATUS_BY_CODE[code] ?? 'failed';
  const memo = decodeFields(info.memo?.fields) as Partial<RunMemo>;
  const startedAt = toDate(info.startTime) ?? new Date(now);
  const completedAt = status === 'running' ? null : toDate(info.closeTime);
  const trigger = searchAttributes(info).AgentryTriggerType;
  return {
    id: info.execution?.workflowId ?? '',
    status,
    successful: status === 'successful',
    started_at: startedAt.toISOString(),
    completed_at: completedAt?.toISOString() ?? null,
    duration: (completedAt?.getTime() ?? now) - startedAt.getTime(),
    operations: memo.operations ?? 0,
    ai_credits: memo.aiCredits ?? 0,
    error: memo.error ?? ENDED_WITHOUT_MEMO[code] ?? (status === 'failed' ? 'The run failed' : null),
    insufficient_credits: memo.insufficientCredits ?? false,
    prevented_loop: memo.preventedLoop ?? false,
    trigger_type: typeof trigger === 'string' ? trigger : null,
    temporal_workflow_id: info.execution?.workflowId ?? '',
    temporal_run_id: info.execution?.runId ?? '',
  };
}

export function nodeResultView(result: NodeResult): LogNodeResult {
  return {
    node_id: result.nodeId,
    alias: result.alias,
    type: result.type,
    success: result.success,
    error: result.error ?? null,
    ai_credits: result.aiCredits ?? 0,
    created_at: result.createdAt ?? null,
    output: result.output ?? null,
  };
}

type Node = Pick<Graph['nodes'][number], 'nodeId' | 'alias' | 'type'>;

/**
 * Node results from a run's history, read as `lib/runtime/node-activities.ts` describes a node execution: the entry
 * node (the workflow produces its output, the trigger payload, when the run starts), then one per node whose
 * activities ended it, in the order they did. Local activities' markers do not record their input: their summary
 * names the node (runs from before summaries: the node the previous node's handle leads to). ITERATION and BREAK run
 * inside the workflow and have no event, so they are missing here. When `closed`, a node still in flight was
 * interrupted and is listed as failed.
 */
export function nodeResultsFromHistory(events: HistoryEvent[], closed: boolean, interruption = 'Cancelled'): LogNodeResult[] {
  const input = decode<RunAutomationInput>(events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  // Scheduled activities not yet ended, by event id: node activities, and `aiCall`s with the node they serve.
  const running = new Map<string, { node: Node; activity: string }>();
  let awaitingAi: Node | undefined;
  const results: LogNodeResult[] = [];
  let previous: { node: Node; handle: string } | undefined;
  const add = (node: Node, at: Date | null, outcome: NodeOutcome | undefined, error: string | null) => {
    results.push(
      nodeResultView({
        ...pick(node),
        success: !error,
        ...(error ? { error } : {}),
        output: outcome?.output,
        aiCredits: outcome?.aiCredits,
        createdAt: at?.toISOString(),
      }),
    );
    previous = { node, handle: outcome?.handle || 'default' };
  };
  const entry = input?.graph.nodes.find((n) => n.nodeId === input.entryNodeId);
  if (entry && input?.nodeFacts?.[entry.type]?.entry) add(entry, toDate(events[0]!.eventTime), { output: input.triggerPayload }, null);
  for (const event of events) {
    const at = toDate(event.eventTime);
    const scheduled = event.activityTaskScheduledEventAttributes;
    const name = scheduled?.activityType?.name;
    if (scheduled && isNodeActivity(name)) {
      const args = decode<ExecuteNodeInput>(scheduled.input?.payloads?.[0]);
      if (args) running.set(String(event.eventId), { node: args.node, activity: name });
      awaitingAi = undefined;
      continue;
    }
    if (name === AI_CALL_ACTIVITY) {
      if (awaitingAi) running.set(String(event.eventId), { node: awaitingAi, activity: name });
      awaitingAi = undefined;
      continue;
    }
    const ended =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    const ran = ended && running.get(String(ended.scheduledEventId));
    if (ended && ran) {
      const { node, activity } = ran;
      running.delete(String(ended.scheduledEventId));
      const failure = event.activityTaskFailedEventAttributes?.failure ?? event.activityTaskTimedOutEventAttributes?.failure;
      const error = event.activityTaskCompletedEventAttributes
        ? null
        : event.activityTaskCanceledEventAttributes
          ? interruption
          : failureMessage(failure);
      const outcome = decode<NodeOutcome>(event.activityTaskCompletedEventAttributes?.result?.payloads?.[0]);
      if (leavesNodeInFlight(activity, { failed: !!error, outcome })) awaitingAi = node;
      else add(node, at, activity === AI_CALL_ACTIVITY ? undefined : outcome, error);
      continue;
    }
    // A local activity's marker carries JSON like { seq, attempt, activity_type, … } under `data`, its result under
    // `result`, and the node's summary (workflows/node-runner.ts) in the event's user metadata.
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? decode<{ activity_type?: string }>(marker.details?.data?.payloads?.[0]) : undefined;
    if (isNodeActivity(data?.activity_type) && input) {
      const summary = decode<string>(event.userMetadata?.summary);
      const local = (summary && input.graph.nodes.find((n) => nodeSummary(n) === summary)) || localNode(input, previous);
      const outcome = decode<NodeOutcome>(marker!.details?.result?.payloads?.[0]);
      awaitingAi = undefined;
      if (local && leavesNodeInFlight(data!.activity_type, { failed: !!marker!.failure, outcome })) awaitingAi = local;
      else if (local)
        add(local, at, outcome, !marker!.failure ? null : marker!.failure.canceledFailureInfo ? interruption : failureMessage(marker!.failure));
    }
  }
  if (closed)
    for (const node of [...[...running.values()].map((r) => r.node), ...(awaitingAi ? [awaitingAi] : [])]) add(node, null, undefined, interruption);
  return results;
}

function pick(node: Node): Node {
  return { nodeId: node.nodeId, alias: node.alias, type: node.type };
}

function failureMessage(failure: { message?: string | null; cause?: { message?: string | null } | null } | null | undefined): string {
  return failure?.message || failure?.cause?.message || 'The node failed';
}

function localNode(input: RunAutomationInput, previous: { node: Node; handle: string } | undefined): Node | undefined {
  if (!previous) return input.graph.nodes.find((n) => n.nodeId === input.entryNodeId);
  const edge = input.graph.edges.find((e) => e.source === previous.node.nodeId && e.handle === previous.handle);
  return edge && input.graph.nodes.find((n) => n.nodeId === edge.targetEdge);
}
