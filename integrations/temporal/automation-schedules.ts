/**
 * `AutomationSchedules` on Temporal: each schedule starts `runAutomation` on the run task queue with the live
 * snapshot's graph, from its SCHEDULED_TRIGGER node, under the workflow id `automation:<automationId>:schedule-<nodeId>`
 * (Temporal appends the fire time). A fire time that comes while the node's previous run still runs is skipped.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  ServiceError,
  isGrpcServiceError,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import { BadRequestError } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import type { NodeFactsByType } from '../../lib/runtime/contract.js';
import { automationRunWorkflowId, runInput, runSearchAttributes, type RunStartRequest } from '../../lib/runtime/run-start.js';
import {
  automationScheduleId,
  SchedulesUnavailableError,
  type AutomationSchedules,
  type ScheduleState,
  type ScheduleTarget,
} from '../../lib/schedules/automation-schedules.js';
import { scheduleSpecOf, type ScheduledTriggerData } from '../../lib/schedules/schedule-spec.js';

const policies = { overlap: ScheduleOverlapPolicy.SKIP };

/** What a scheduled run receives as `{trigger_payload}`; the run adds `scheduledTime` (workflows/run-automation.workflow.ts). */
export interface ScheduledTriggerPayload {
  scheduleId: string;
  nodeId: string;
}

export class TemporalAutomationSchedules implements AutomationSchedules {
  constructor(
    private readonly temporal: Client,
    /** The task queue automation runs go to (the worker's). */
    private readonly taskQueue: string,
    /** The node facts a run of a graph carries (the node registry's `nodeFactsOf`). */
    private readonly factsOf: (graph: Graph) => NodeFactsByType,
  ) {}

  async save(target: ScheduleTarget, state: ScheduleState, options: { onlyIfExists?: boolean } = {}): Promise<void> {
    const scheduleId = automationScheduleId(target.automationId, target.node.nodeId);
    const desired = this.desired(target, state);
    await this.call(target, async () => {
      if (options.onlyIfExists) return this.update(scheduleId, desired, true);
      try {
        // The memo's keys are stored with every schedule and shown in the Temporal UI: `workflowId` (SPEC.md's name) stays.
        const memo = { accountId: target.accountId, workflowId: target.automationId, nodeId: target.node.nodeId };
        await this.temporal.schedule.create({ scheduleId, ...desired, memo });
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
        await this.update(scheduleId, desired, false);
      }
    });
  }

  async delete(scheduleId: string): Promise<void> {
    await this.call(undefined, async () => {
      try {
        await this.temporal.schedule.getHandle(scheduleId).delete();
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      }
    });
  }

  /** Replaces spec, action, policies and state; a missing schedule is skipped when `missingIsFine`, else an error. */
  private async update(scheduleId: string, desired: ScheduleUpdateOptions<ScheduleOptionsAction>, missingIsFine: boolean): Promise<void> {
    try {
      await this.temporal.schedule.getHandle(scheduleId).update(() => desired);
    } catch (error) {
      if (!(missingIsFine && error instanceof ScheduleNotFoundError)) throw error;
    }
  }

  private desired(target: ScheduleTarget, state: ScheduleState): ScheduleUpdateOptions<ScheduleOptionsAction> {
    const { node } = target;
    const triggerPayload: ScheduledTriggerPayload = { scheduleId: automationScheduleId(target.automationId, node.nodeId), nodeId: node.nodeId };
    const run: RunStartRequest = {
      accountId: target.accountId,
      automationId: target.automationId,
      snapshotId: target.snapshotId,
      graph: target.graph,
      nodeFacts: this.factsOf(target.graph),
      entryNodeId: node.nodeId,
      triggerPayload,
      trigger: { type: 'SCHEDULED_TRIGGER' },
    };
    return {
      spec: scheduleSpecOf(node.data as unknown as ScheduledTriggerData),
      action: {
        type: 'startWorkflow',
        workflowType: 'runAutomation',
        workflowId: automationRunWorkflowId(target.automationId, `schedule-${node.nodeId}`),
        taskQueue: this.taskQueue,
        args: [{ ...runInput(run), awaitAdmission: true }],
        typedSearchAttributes: runSearchAttributes(run),
      },
      policies,
      state: { paused: state.paused, note: state.note },
    };
  }

  /** Runs a Temporal request, turning its failures into API errors (400 for a refused spec, 503 when unreachable). */
  private async call(target: ScheduleTarget | undefined, request: () => Promise<void>): Promise<void> {
    try {
      await request();
    } catch (error) {
      if (error instanceof TypeError && target) {
        // The client reports a spec the server refuses as a TypeError ("Invalid schedule spec: …").
        const message = `Temporal refused the schedule of node "${target.node.alias}": ${error.message}`;
        throw new BadRequestError(message, [{ code: 'invalid', path: `nodes.${target.node.nodeId}.data.cronExpression`, message: error.message }]);
      }
      if (error instanceof ServiceError || error instanceof NamespaceNotFoundError || isGrpcServiceError(error)) {
        const cause = error instanceof ServiceError && error.cause instanceof Error ? error.cause.message : error.message;
        throw new SchedulesUnavailableError(`Temporal did not accept the schedule change, so nothing was changed; retry later (${cause})`);
      }
      throw error;
    }
  }
}
