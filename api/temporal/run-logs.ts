/**
 * Run logs of a workflow, read from Temporal: the list from visibility (filtered by the run's search attributes),
 * one log from describing its execution plus its result or history, and cancellation of a running one.
 * Visibility is eventually consistent: a run appears in the list, and its final state shows there, a moment
 * after Temporal records it; the detail reads the execution itself and is always current.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, isGrpcServiceError, type Client } from '@temporalio/client';
import { finishRun } from '../../db/automations/run-ledger.js';
import { retryLinksOf, type RetryLink } from '../../db/automations/run-retries.js';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import { isDateOrDateTime } from '../../lib/time/date-formats.js';
import { parseDateTime } from '../../lib/time/zoned-time.js';
import { ownedExecution, runResult, type LogScope } from '../../integrations/temporal/run-executions.js';
import { nodeResultsFromHistory, nodeResultView, runLog, type LogNodeResult, type RunLog } from '../../integrations/temporal/run-history.js';

export type { LogScope } from '../../integrations/temporal/run-executions.js';

export interface LogListQuery {
  limit: number;
  cursor?: string;
  status?: string;
  start_date?: string;
  end_date?: string;
}

/** What `status` accepts (case-insensitive), and the Temporal execution statuses each stands for. */
const STATUS_FILTERS: Record<string, string[]> = {
  successful: ['Completed'],
  success: ['Completed'],
  completed: ['Completed'],
  failed: ['Failed', 'Terminated', 'TimedOut'],
  error: ['Failed', 'Terminated', 'TimedOut'],
  running: ['Running'],
  pending: ['Running'],
  cancelled: ['Canceled'],
  canceled: ['Canceled'],
};

const DAY_MS = 86_400_000;

/**
 * A date bound of a query: `YYYY-MM-DD` (a whole day in UTC: an end date includes that day) or an ISO date-time
 * (UTC unless it names an offset). Anything else is a 400 naming the parameter.
 */
export function parseDateBound(value: string, bound: 'start' | 'end', field: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const date = isDateOrDateTime(value) ? parseDateTime(value, 'UTC') : undefined;
  if (!date) throw new BadRequestError(`${field} must be a date (YYYY-MM-DD) or an ISO date-time, got "${value}"`, `query.${field}`);
  return day && bound === 'end' ? new Date(date.getTime() + DAY_MS - 1) : date;
}

function visibilityQuery(scope: LogScope, query: LogListQuery): string {
  const clauses = [`AgentryAccountId = ${scope.accountId}`, `AgentryAutomationId = ${scope.automationId}`];
  if (query.status !== undefined) {
    const statuses = STATUS_FILTERS[query.status.trim().toLowerCase()];
    if (!statuses)
      throw new BadRequestError(`status must be one of successful, failed, running (or pending), cancelled; got "${query.status}"`, 'query.status');
    clauses.push(`(${statuses.map((s) => `ExecutionStatus = '${s}'`).join(' OR ')})`);
  }
  const start = query.start_date !== undefined ? parseDateBound(query.start_date, 'start', 'start_date') : undefined;
  const end = query.end_date !== undefined ? parseDateBound(query.end_date, 'end', 'end_date') : undefined;
  if (start && end && end < start) throw new BadRequestError('end_date is before start_date', 'query.end_date');
  if (start) clauses.push(`StartTime >= '${start.toISOString()}'`);
  // Temporal keeps start times in nanoseconds, logs show milliseconds: an end bound includes its whole millisecond.
  if (end) clauses.push(`StartTime < '${new Date(end.getTime() + 1).toISOString()}'`);
  return clauses.join(' AND ');
}

/** A cursor is Temporal's page token behind a short digest of the list's query, so a cursor only continues its own list. */
function cursorDigest(token: Uint8Array, query: string): Buffer {
  return createHash('sha256').update(query).update('\0').update(token).digest().subarray(0, 8);
}

function encodeCursor(token: Uint8Array, query: string): string {
  return Buffer.concat([cursorDigest(token, query), token]).toString('base64url');
}

function decodeCursor(cursor: string, query: string): Buffer {
  const raw = Buffer.from(cursor, 'base64url');
  const token = raw.subarray(8);
  if (raw.toString('base64url') !== cursor || !token.length || !cursorDigest(token, query).equals(raw.subarray(0, 8))) {
    throw new BadRequestError('Invalid cursor', [
      { code: 'invalid', path: 'query.cursor', message: 'is not a cursor of this list (with these filters)' },
    ]);
  }
  return token;
}

/**
 * One page of logs in Temporal visibility's order: running runs first, then by end time, most recent first.
 * `nextCursor` is null on the last page.
 */
export async function listRunLogs(temporal: Client, scope: LogScope, query: LogListQuery): Promise<{ agentry: RunLog[]; nextCursor: string | null }> {
  const request = { namespace: temporal.options.namespace, query: visibilityQuery(scope, query) };
  const token = query.cursor === undefined ? undefined : decodeCursor(query.cursor, request.query);
  const page = await temporal.workflowService.listWorkflowExecutions({ ...request, pageSize: query.limit, nextPageToken: token });
  const now = Date.now();
  const items = (page.executions ?? []).map((info) => runLog(info, now));
  let next = page.nextPageToken?.length ? page.nextPageToken : null;
  // Visibility hands out a token whenever a page is full; look one run ahead so the last page says so.
  if (next && items.length >= query.limit) {
    const peek = await temporal.workflowService.listWorkflowExecutions({ ...request, pageSize: 1, nextPageToken: next });
    if (!peek.executions?.length) next = null;
  }
  return { agentry: items, nextCursor: next ? encodeCursor(next, request.query) : null };
}

/** One log with its retry links (`retry_of`, `retries`) and `node_results`. */
export type RunLogDetail = RunLog & { retry_of: string | null; retries: RetryLink[]; node_results: LogNodeResult[] };

/** One log with `node_results`: from the run's result when it has one, else from its history. */
export async function getRunLog(em: EntityManager, temporal: Client, scope: LogScope, logId: string): Promise<RunLogDetail> {
  const info = await ownedExecution(temporal, scope, logId);
  const links = await retryLinksOf(em, scope.accountId, logId);
  const log = { ...runLog(info), retry_of: links.retryOf, retries: links.retries };
  const handle = temporal.workflow.getHandle(logId, log.temporal_run_id);
  const result = log.status === 'successful' || log.status === 'failed' ? await runResult(handle) : undefined;
  if (result) return { ...log, node_results: result.nodeResults.map(nodeResultView) };
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  // A run terminated through the API (or the Temporal UI) says why: the reason its termination recorded.
  const reason = events.at(-1)?.workflowExecutionTerminatedEventAttributes?.reason;
  const error = reason ? `Terminated: ${reason}` : log.error;
  return { ...log, error, node_results: nodeResultsFromHistory(events, log.status !== 'running', error ?? 'Cancelled') };
}

/** gRPC's NOT_FOUND: Temporal's answer for a run that no longer runs. */
const GRPC_NOT_FOUND = 5;

/** Requests cancellation of a running run; 409 when it has already ended. Answers the log as it is now. */
export async function cancelRunLog(temporal: Client, scope: LogScope, logId: string): Promise<RunLog> {
  const info = await ownedExecution(temporal, scope, logId);
  const status = runLog(info).status;
  const ended = () =>
    new ConflictError(`Log ${logId} has already ended${status === 'running' ? '' : ` (${status})`}: only a running run can be cancelled`);
  if (status !== 'running') throw ended();
  try {
    // The request's reason is in the run's history (WorkflowExecutionCancelRequested), as the Temporal UI shows it.
    await temporal.workflowService.requestCancelWorkflowExecution({
      namespace: temporal.options.namespace,
      workflowExecution: { workflowId: logId, runId: info.execution?.runId ?? undefined },
      identity: temporal.options.identity,
      requestId: randomUUID(),
      reason: `Cancelled through the API (POST /workflows/${scope.automationId}/logs/{logId}/cancel)`,
    });
  } catch (error) {
    // It ended between the describe and the cancel.
    if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)) throw ended();
    throw error;
  }
  return runLog(await ownedExecution(temporal, scope, logId));
}

/**
 * Terminates a running run at once (no cleanup runs in it, unlike a cancellation), with `reason` recorded in its
 * history, and closes its ledger row and admission slot; 409 when it has already ended. Answers the log as it is now.
 */
export async function terminateRunLog(em: EntityManager, temporal: Client, scope: LogScope, logId: string, reason: string): Promise<RunLog> {
  const info = await ownedExecution(temporal, scope, logId);
  const status = runLog(info).status;
  const ended = () =>
    new ConflictError(`Log ${logId} has already ended${status === 'running' ? '' : ` (${status})`}: only a running run can be terminated`);
  if (status !== 'running') throw ended();
  try {
    await temporal.workflow.getHandle(logId, info.execution?.runId ?? undefined).terminate(reason);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw ended();
    throw error;
  }
  const now = runLog(await ownedExecution(temporal, scope, logId));
  await finishRun(em, {
    id: logId,
    status: 'failed',
    operations: 0,
    aiCredits: 0,
    error: `Terminated: ${reason}`,
    completedAt: now.completed_at ?? new Date().toISOString(),
  });
  return { ...now, error: `Terminated: ${reason}` };
}
