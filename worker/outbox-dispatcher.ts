/**
 * The outbox dispatcher (DESIGN.md, Events that start runs): hands committed events to Temporal. Each event starts
 * one `runAutomation` per subscribed entry node, with the Temporal workflow id
 * `automation:<automationId>:event-<eventId>` and REJECT_DUPLICATE, then is marked dispatched in the same
 * transaction that locked it. A crash before the commit leaves the event pending and the next pass starts only
 * what is missing; a redelivered event starts nothing twice. It wakes on the NOTIFY that writers send after
 * committing events (db/automations/outbox-notifier.ts) and polls as a safety net. Several dispatchers (one per worker process)
 * take turns through an advisory lock (and SKIP LOCKED).
 *
 * Admission control (db/automations/admission.ts, worker/admission-plan.ts): a pass starts runs only while fewer
 * than the bound are in flight, taking events round-robin by account and holding those of automations at their
 * concurrency limit; the rest wait in the outbox, in order. A run that ends frees its slot and wakes the dispatchers
 * with the same NOTIFY that new events send. Manual runs come through the outbox too (MANUAL_RUN events carrying
 * their whole input), so they obey the same bound. Background events (a retry job's retries) yield: they are taken
 * after every other event and fill at most a share of the bound (`backgroundSlots`), so fresh runs keep their latency.
 *
 * An event whose dispatch fails (Temporal refuses its run, a bug in matching) fails alone: the rest of its batch is
 * dispatched, and it is retried with backoff, then parked after `retry.maxAttempts` (`npm run admin -- outbox`).
 * Temporal being unreachable is nobody's event's fault: then the whole pass is retried and no attempt is counted.
 *
 * Events of `DIRECT_STARTS` (knowledge-base indexing, the messaging networks' messages, statuses and deliveries)
 * start (or signal) a workflow of their own instead of runs: they match no entry node and take no admission slot.
 */
import { PgListener } from '../db/pg-listener.js';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Orm } from '../db/orm.js';
import { OUTBOX_CHANNEL } from '../db/automations/outbox-notifier.js';
import { type Claim, loadGraphs, markFailed, type PendingEvent, type RetryPolicy } from '../db/automations/event-subscribers.js';
import { EVENT_ENTRY_TYPES } from '../nodes/registry.js';
import { dispatchLag } from '../lib/metrics.js';
import type { Graph } from '../lib/graph/graph.js';
import { runInput, runSearchAttributes, runSummary } from '../lib/runtime/run-start.js';
import { ADMITTED_SIGNAL, MANUAL_RUN_EVENT, SCHEDULED_RUN_EVENT } from '../lib/runtime/queued-runs.js';
import { recordDispatched, lockAdmission, automationLimits, backgroundSlots } from '../db/automations/admission.js';
import { planAdmission } from './admission-plan.js';
import { AdmissionBound, type AdmissionSettings } from './admission-bound.js';
import { attempt, attemptAsync, messageOf, temporalUnreachable, type Outcome } from './dispatch-outcomes.js';
import { eventRunOf, manualRunOf, scheduledRunOf, subscribersOf, type PlannedRun } from './event-runs.js';
import { DIRECT_STARTS, type DirectStart } from './direct-starts.js';
import { turnsTaskQueue } from '../lib/runtime/conversation-contract.js';

export interface DispatcherDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  /** For the LISTEN connection. */
  databaseUrl: string;
  batchSize?: number;
  pollIntervalMs?: number;
  /** How failed events are retried and when they are parked (default: 8 attempts, 1 s doubling up to 5 min). */
  retry?: Partial<RetryPolicy>;
  log?: (message: string) => void;
  /** How many runs may be in flight (default: RUN_SLOTS_PER_WORKER per live worker process). */
  admission?: Partial<AdmissionSettings>;
  /**
   * Start runs with eager workflow start: `temporal` must be built on the NativeConnection of a worker polling
   * `taskQueue` in this process, which then receives the run's first workflow task in the start's answer.
   */
  eagerStart?: boolean;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, baseMs: 1_000, maxMs: 300_000 };

/** Outbox events that carry one run of their own instead of being matched against entry nodes. */
const QUEUED_RUNS: Record<string, ((event: PendingEvent) => PlannedRun) | undefined> = {
  [MANUAL_RUN_EVENT]: manualRunOf,
  [SCHEDULED_RUN_EVENT]: scheduledRunOf,
};

/** Event types that carry their run or workflow themselves: they are not matched against entry nodes. */
const OWN_RUNS = [...Object.keys(QUEUED_RUNS), ...Object.keys(DIRECT_STARTS)];

const GRAPH_CACHE_SIZE = 500;

type Trx = Parameters<typeof loadGraphs>[0];

/** What a claimed event starts: its runs, or why they could not be worked out. */
type Plan = Outcome<{ runs: PlannedRun[] }>;

/** A claimed event of a pass and its plan. */
interface Planned {
  event: PendingEvent;
  plan: Plan;
}

/** An admitted event and how starting its runs went (or its plan's failure). */
interface Started extends Planned {
  outcome: Outcome<{ ok: true }>;
}

/** The runs an event's plan starts (none when it could not be worked out). */
function runsOf({ plan }: Planned): PlannedRun[] {
  return 'runs' in plan ? plan.runs : [];
}

export class OutboxDispatcher {
  private stopped = true;
  private woken = false;
  private wake?: () => void;
  private listener?: PgListener;
  private loop?: Promise<void>;
  /** Live snapshots are immutable, so their graphs are cached by snapshot id. */
  private readonly graphs = new Map<string, Graph>();
  readonly bound: AdmissionBound;

  constructor(private readonly deps: DispatcherDeps) {
    this.bound = new AdmissionBound(deps.orm.em.getKnex(), deps.taskQueue, deps.admission);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.bound.start();
    // A NOTIFY wakes the loop; while no connection listens, it polls.
    this.listener = new PgListener({
      databaseUrl: this.deps.databaseUrl,
      channel: OUTBOX_CHANNEL,
      onNotification: () => {
        this.woken = true;
        this.wake?.();
      },
      log: (message) => this.deps.log?.(`outbox dispatcher: ${message}; polling meanwhile`),
    });
    this.listener.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.bound.stop();
    await this.listener?.stop();
  }

  /**
   * One pass: admits what fits of up to `batchSize` pending events and starts their runs; answers how many events it
   * dispatched (0 when another dispatcher is admitting, or nothing fits).
   */
  async dispatchOnce(): Promise<number> {
    const bound = await this.bound.value();
    return this.deps.orm.em.getKnex().transaction(async (trx) => {
      const pass = await lockAdmission(trx, bound, this.deps.batchSize ?? 100, EVENT_ENTRY_TYPES, OWN_RUNS);
      if (pass === null) return 0;
      const { inFlight, backgroundInFlight, claim } = pass;
      const free = bound - inFlight;
      if (free <= 0) return 0;
      const { planned, unlimited } = await this.plan(trx, claim);
      const backgroundFree = backgroundSlots(bound) - backgroundInFlight;
      const admitted = await this.admit(trx, planned, { free, inFlight, backgroundFree }, unlimited);
      const started = await this.startRuns(admitted);
      await this.record(trx, started);
      return started.size;
    });
  }

  /**
   * Plan: the runs each claimed event starts, or why they could not be worked out; by event id, in claim order. With
   * them, the automations its candidates showed to have no concurrency limit (admission need not look them up).
   */
  private async plan(trx: Trx, { events, candidates }: Claim): Promise<{ planned: Map<string, Planned>; unlimited: Set<number> }> {
    const matched = new Map(
      events.map((event) => [
        event.id,
        QUEUED_RUNS[event.type] || DIRECT_STARTS[event.type] ? { subscribers: [] } : attempt(() => subscribersOf(event, candidates)),
      ]),
    );
    await this.cacheGraphs(
      trx,
      [...matched.values()].flatMap((m) => ('subscribers' in m ? m.subscribers.map((s) => s.snapshotId) : [])),
    );
    const planned = new Map(
      events.map((event) => {
        const m = matched.get(event.id)!;
        const queued = QUEUED_RUNS[event.type];
        const plan: Plan =
          'subscribers' in m
            ? attempt(() => ({
                runs: queued ? [queued(event)] : m.subscribers.map((sub) => eventRunOf(event, sub, m.subscribers, this.graphs.get(sub.snapshotId)!)),
              }))
            : m;
        return [event.id, { event, plan }];
      }),
    );
    return { planned, unlimited: new Set(candidates.filter((c) => !c.limited).map((c) => c.automationId)) };
  }

  /**
   * Admit: the events this pass handles, in claim order: those whose runs fit (planAdmission), and those whose runs
   * could not even be worked out, which fail now. The others wait for a later pass. The runs are counted in flight
   * once started (`record`), in this transaction.
   */
  private async admit(
    trx: Trx,
    planned: Map<string, Planned>,
    state: { free: number; inFlight: number; backgroundFree: number },
    unlimited: Set<number>,
  ): Promise<Map<string, Planned>> {
    const candidates = [...planned.values()].flatMap(({ event, plan }) =>
      'runs' in plan ? [{ eventId: event.id, automationIds: plan.runs.map((r) => r.request.automationId), background: event.background }] : [],
    );
    const limits = await automationLimits(
      trx,
      [...new Set(candidates.flatMap((c) => c.automationIds))].filter((id) => !unlimited.has(id)),
    );
    const fits = planAdmission(candidates, { ...state, limits });
    return new Map([...planned].filter(([id, { plan }]) => fits.has(id) || !('runs' in plan)));
  }

  /** Start: each admitted event's runs, all at once; an event whose runs were not worked out keeps that failure. */
  private async startRuns(admitted: Map<string, Planned>): Promise<Map<string, Started>> {
    const outcomes = await Promise.all(
      [...admitted.values()].map(async (planned): Promise<Started> => {
        const { plan } = planned;
        if (!('runs' in plan)) return { ...planned, outcome: plan };
        const direct = DIRECT_STARTS[planned.event.type];
        if (direct) return { ...planned, outcome: await attemptAsync(() => this.startDirect(direct(planned.event))) };
        return { ...planned, outcome: await attemptAsync(() => Promise.all(plan.runs.map((run) => this.startRun(run)))) };
      }),
    );
    return new Map(outcomes.map((started) => [started.event.id, started]));
  }

  /**
   * Record: Temporal being unreachable fails the whole pass (the transaction rolls back, no attempt is counted);
   * otherwise the started events are marked dispatched, their runs counted in flight (one statement), and the failed
   * ones are retried with backoff, or parked (a run one of them did start is counted when it is dispatched again).
   */
  private async record(trx: Trx, started: Map<string, Started>): Promise<void> {
    const failures = [...started.values()].flatMap((s) => ('error' in s.outcome ? [{ ...s, error: s.outcome.error }] : []));
    const unreachable = failures.find((f) => temporalUnreachable(f.error));
    if (unreachable) throw unreachable.error;
    const dispatched = [...started.values()].filter((s) => !('error' in s.outcome));
    const now = Date.now();
    for (const { event } of dispatched) dispatchLag.observe((now - event.createdAt.getTime()) / 1000);
    await recordDispatched(
      trx,
      dispatched.map((s) => s.event.id),
      dispatched.flatMap((s) =>
        runsOf(s).map((r) => ({
          id: r.runWorkflowId,
          accountId: r.request.accountId,
          automationId: r.request.automationId,
          background: s.event.background,
        })),
      ),
    );
    for (const { event, error } of failures) this.deps.log?.(`outbox dispatcher: event ${event.id} (${event.type}) failed: ${messageOf(error)}`);
    await markFailed(
      trx,
      failures.map((f) => ({ event: f.event, error: messageOf(f.error) })),
      { ...DEFAULT_RETRY, ...this.deps.retry },
    );
  }

  private async cacheGraphs(trx: Trx, snapshotIds: string[]): Promise<void> {
    const missing = [...new Set(snapshotIds)].filter((id) => !this.graphs.has(id));
    for (const [id, graph] of await loadGraphs(trx, missing)) {
      if (this.graphs.size >= GRAPH_CACHE_SIZE) this.graphs.delete(this.graphs.keys().next().value!);
      this.graphs.set(id, graph);
    }
  }

  /** Starts the workflow of an event outside admission (DIRECT_STARTS); one already started is left alone. */
  private async startDirect({ workflowType, workflowId, args, turns, signal }: DirectStart): Promise<{ ok: true }> {
    const taskQueue = turns ? turnsTaskQueue(this.deps.taskQueue) : this.deps.taskQueue;
    if (signal) {
      await this.deps.temporal.workflow.signalWithStart(workflowType, { taskQueue, workflowId, args, signal: signal.name, signalArgs: signal.args });
      return { ok: true };
    }
    try {
      await this.deps.temporal.workflow.start(workflowType, {
        taskQueue,
        workflowId,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    return { ok: true };
  }

  private async startRun(run: PlannedRun): Promise<void> {
    if (run.admitOnly) {
      // A run its schedule started waits for this signal; one that has ended meanwhile needs nothing.
      await this.deps.temporal.workflow
        .getHandle(run.runWorkflowId)
        .signal(ADMITTED_SIGNAL)
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
      return;
    }
    const { runWorkflowId, request } = run;
    const summary = runSummary(request);
    try {
      await this.deps.temporal.workflow.start('runAutomation', {
        taskQueue: this.deps.taskQueue,
        workflowId: runWorkflowId,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [runInput(request)],
        typedSearchAttributes: runSearchAttributes(request),
        ...(summary ? { staticSummary: summary } : {}),
        ...(this.deps.eagerStart ? { requestEagerStart: true } : {}),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.woken = false;
      let handled = 0;
      try {
        handled = await this.dispatchOnce();
        failures = 0;
      } catch (error) {
        failures += 1;
        this.deps.log?.(`outbox dispatcher: ${error instanceof Error ? error.message : String(error)}; retrying`);
        // At most 5 s apart: once PostgreSQL or Temporal is back, waiting events move within seconds (a failed pass costs little).
        await this.sleep(Math.min(5_000, 250 * 2 ** failures));
        continue;
      }
      if (handled >= (this.deps.batchSize ?? 100) || this.woken) continue;
      await this.sleep(this.deps.pollIntervalMs ?? 1_000);
    }
  }

  /** Waits `ms`, or less when a NOTIFY (or stop) arrives. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
