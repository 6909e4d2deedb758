/**
 * The Temporal Schedules of automations: one per SCHEDULED_TRIGGER node of an ACTIVE automation's live graph, with id
 * `automation-<automationId>-<nodeId>`. The database services decide which schedules should exist and in which state
 * (db/automations/schedules.service.ts) and call this interface; `TemporalAutomationSchedules` implements it with the
 * Temporal client, so db/ never imports one.
 *
 * Failures are `AppError`s: Temporal refusing a spec is a 400 naming the node's field, Temporal not answering a 503
 * (`SchedulesUnavailableError`), so the caller's transaction rolls back and the API tells the user to retry.
 */
import { AppError } from '../errors.js';
import type { Graph, GraphNode } from '../graph/graph.js';

/** Everything a schedule is made from: the automation, the live snapshot it runs and the scheduled node. */
export interface ScheduleTarget {
  accountId: number;
  automationId: number;
  automationName: string;
  /** The live snapshot fired runs execute. */
  snapshotId: string;
  graph: Graph;
  /** The SCHEDULED_TRIGGER node of `graph` the schedule fires. */
  node: GraphNode;
}

/** Whether a schedule fires, and the note Temporal shows next to it. */
export interface ScheduleState {
  paused: boolean;
  note: string;
}

export interface AutomationSchedules {
  /**
   * Creates the node's schedule, or replaces the spec, action and state of the one that exists. With
   * `onlyIfExists`, a schedule that does not exist stays absent (a paused automation's new nodes get none).
   */
  save(target: ScheduleTarget, state: ScheduleState, options?: { onlyIfExists?: boolean }): Promise<void>;
  /** Removes a schedule; one that does not exist counts as removed. */
  delete(scheduleId: string): Promise<void>;
}

/** The id of a scheduled node's Temporal Schedule, as shown in the Temporal UI. */
export function automationScheduleId(automationId: number, nodeId: string): string {
  return `automation-${automationId}-${nodeId}`;
}

/** Temporal did not answer a schedule request: not the caller's fault, and worth retrying. */
export class SchedulesUnavailableError extends AppError {
  constructor(message: string) {
    super(503, 'internal', message);
  }
}
