/** Retry jobs (`POST /workflows/{id}/retries`): which failed runs a job's filter finds, and the job's workflow id. Pure. */

export interface RetryFilter {
  status: 'failed';
  /** ISO date-times: runs started in [from, to). */
  from: string;
  to: string;
  /** Only runs that failed at this node. */
  nodeId?: string;
  /** Only runs whose error contains this text (case-insensitive). */
  errorContains?: string;
}

/** The Temporal workflow id of a retry job: the Temporal UI lists them with `WorkflowType = 'retryRuns'`. */
export const retryJobWorkflowId = (jobId: string) => `retry-job:${jobId}`;

/** The visibility query of the failed runs of an automation started in the filter's window. */
export function retryJobQuery(accountId: number, automationId: number, filter: RetryFilter): string {
  return [
    `WorkflowType = 'runAutomation'`,
    `AgentryAccountId = ${Number(accountId)}`,
    `AgentryAutomationId = ${Number(automationId)}`,
    `ExecutionStatus = 'Failed'`,
    `StartTime >= '${new Date(filter.from).toISOString()}'`,
    `StartTime < '${new Date(filter.to).toISOString()}'`,
  ].join(' AND ');
}
