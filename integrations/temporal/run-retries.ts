/**
 * Retrying a failed automation run: the new run, prepared from what Temporal kept of the failed one (its input and its
 * result). `from: "failed-node"` keeps the results of the nodes before the failed one and starts the walk at it
 * (`lib/runtime/run-resume.ts`); `from: "start"` runs again from the entry node with the same trigger payload.
 * `graph: "original"` runs the failed run's own graph, `"live"` the automation's live snapshot.
 *
 * A retry is a new run (workflow id `automation:<id>:retry-<uuid>`) rather than a Temporal reset of the failed one:
 * nodes run as local activities, several in one workflow task, so the failed run's history has no workflow task
 * between the last kept node and the failed one to reset to (a reset would execute the kept nodes again). The new
 * run's input names the run it retries (`retryOf`, in the first event of its history), and it waits for admission
 * like every run.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Automation } from '../../db/automations/automation.entity.js';
import { GraphSnapshot } from '../../db/automations/graph-snapshot.entity.js';
import type { RetryFrom, RetryGraph } from '../../db/automations/run-retries.js';
import { ConflictError } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import type { NodeFactsByType, RunResume } from '../../lib/runtime/contract.js';
import type { ManualRunEventPayload } from '../../lib/runtime/queued-runs.js';
import { resumeFromFailure } from '../../lib/runtime/run-resume.js';
import { automationRunWorkflowId, runInput, type RunStartRequest } from '../../lib/runtime/run-start.js';
import { withScheduledTime } from '../../lib/schedules/scheduled-time.js';
import { ownedExecution, runResult, startInput } from './run-executions.js';
import { runLog } from './run-history.js';

export interface RetryChoice {
  from: RetryFrom;
  graph: RetryGraph;
}

/** The node types' facts of a graph (`nodes/registry.ts` `nodeFactsOf`, passed in: this layer is below the nodes). */
export type FactsOf = (graph: Graph) => NodeFactsByType;

/**
 * The run that retries log `logId` of `automation` as `choice` says; 404 when the log is not a run of it, 409 when
 * the run did not fail, when it has no failed node to start from (a terminated run), when the failed node ran inside
 * a loop, or when the live graph no longer has the node the retry starts at.
 */
export async function prepareRetry(
  em: EntityManager,
  temporal: Client,
  automation: Automation,
  logId: string,
  choice: RetryChoice,
  factsOf: FactsOf,
  match: { nodeId?: string; errorContains?: string } = {},
): Promise<ManualRunEventPayload> {
  const info = await ownedExecution(temporal, { accountId: automation.account.id, automationId: automation.id }, logId);
  const log = runLog(info);
  if (log.status !== 'failed') throw new ConflictError(`Log ${logId} did not fail (it is ${log.status}): only a failed run can be retried`);
  const runId = log.temporal_run_id;
  const input = await startInput(temporal, logId, runId);
  let graph: Graph = input.graph;
  let nodeFacts = input.nodeFacts;
  let snapshotId = input.snapshotId;
  if (choice.graph === 'live') {
    if (!automation.liveSnapshotId) throw new ConflictError(`Workflow ${automation.id} has no live snapshot: retry with graph "original"`);
    const snapshot = await em.findOneOrFail(GraphSnapshot, { id: automation.liveSnapshotId });
    graph = { nodes: snapshot.nodes, edges: snapshot.edges };
    nodeFacts = factsOf(graph);
    snapshotId = snapshot.id;
  }
  let resume: RunResume | undefined;
  const needsResult = choice.from === 'failed-node' || match.nodeId !== undefined || match.errorContains !== undefined;
  const result = needsResult ? await runResult(temporal.workflow.getHandle(logId, runId)) : undefined;
  // A retry job's filter narrows by the failed node and the error (a run that does not match is skipped).
  if (match.nodeId !== undefined && result?.error?.nodeId !== match.nodeId)
    throw new ConflictError(`Log ${logId} did not fail at node ${match.nodeId}`);
  if (match.errorContains !== undefined && !(result?.error?.message ?? log.error ?? '').toLowerCase().includes(match.errorContains.toLowerCase())) {
    throw new ConflictError(`The error of log ${logId} does not contain "${match.errorContains}"`);
  }
  if (choice.from === 'failed-node') {
    if (!result?.error) throw new ConflictError(`Log ${logId} ended without a failed node (${log.error ?? 'terminated'}): retry from the start`);
    const plan = resumeFromFailure(result, graph);
    if (!plan.ok) throw new ConflictError(`Log ${logId} cannot be retried from its failed node: ${plan.message}`);
    resume = plan.resume;
  }
  const startNode = resume?.fromNodeId ?? input.entryNodeId;
  if (!graph.nodes.some((n) => n.nodeId === startNode)) {
    const what = resume ? 'failed node' : 'entry node';
    throw new ConflictError(`The ${what} ${startNode} of log ${logId} is no longer in the live graph of workflow ${automation.id}`, {
      nodeId: startNode,
    });
  }
  const request: RunStartRequest = {
    accountId: automation.account.id,
    automationId: automation.id,
    snapshotId,
    graph,
    nodeFacts,
    entryNodeId: input.entryNodeId,
    // A scheduled run's time is in its workflow id, which the retry's does not carry: it gets it in its payload.
    triggerPayload: input.trigger?.type === 'SCHEDULED_TRIGGER' ? withScheduledTime(input.triggerPayload, logId) : input.triggerPayload,
    trigger: { type: input.trigger?.type ?? 'MANUAL' },
    chain: input.chain ?? [],
    retryOf: { runWorkflowId: logId, runId },
    ...(resume ? { resume } : {}),
  };
  const runWorkflowId = automationRunWorkflowId(automation.id, `retry-${randomUUID()}`);
  // Sized here, so a run too large for Temporal is refused (413) now rather than failing in the outbox.
  return { runWorkflowId, request: { ...runInput(request), trigger: request.trigger } };
}
