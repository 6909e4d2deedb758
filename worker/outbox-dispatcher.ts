/**
 * The outbox dispatcher (DESIGN.md, Events that start runs): hands committed events to Temporal. Each event starts
 * one `runAutomation` per subscribed entry node, with the Temporal workflow id
 * `automation:<automationId>:event-<eventId>` and REJECT_DUPLICATE, then is marked dispatched in the same
 * transaction that locked it. A crash before the commit leaves the event pending and the next pass starts only
 * what is missing; a redelivered event starts nothing twice. It wakes on the NOTIFY that writers send after
 * committing events (db/outbox-notifier.ts) and polls as a safety net. Several dispatchers (one per worker process)
 * take turns through an advisory lock (and SKIP LOCKED).
 *
 * Admission control (db/automations/admission.ts, worker/admission-plan.ts): a pass starts runs only while fewer
 * than the bound are in flight, taking events round-robin by account and holding those of workflows at their
 * concurrency limit; the rest wait in the outbox, in order. A run that ends frees its slot and wakes the dispatchers
 * with the same NOTIFY that new events send. Manual runs come through the outbox too (MANUAL_RUN events carrying
 * their whole input), so they obey the same bound.
 *
 * An event whose dispatch fails (Temporal refuses its run, a bug in matching) fails alone: the rest of its batch is
 * dispatched, and it is retried with backoff, then parked after `retry.maxAttempts` (`npm run admin -- outbox`).
 * Temporal being unreachable is nobody's event's fault: then the whole pass is retried and no attempt is counted.
 */
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Orm } from '../db/orm.js';
import { OUTBOX_CHANNEL } from '../db/outbox-notifier.js';
import {
  claimPendingEvents,
  findEntryCandidates,
  loadGraphs,
  markDispatched,
  markFailed,
  type PendingEvent,
  type RetryPolicy,
} from '../db/automations/event-subscribers.js';
import { EVENT_ENTRY_TYPES } from '../nodes/registry.js';
import { dispatchLag } from '../lib/metrics.js';
import type { Graph } from '../lib/graph/graph.js';
import { runInput, runSearchAttributes } from '../lib/runtime/run-start.js';
import { ADMITTED_SIGNAL, MANUAL_RUN_EVENT, SCHEDULED_RUN_EVENT } from '../lib/runtime/queued-runs.js';
import { recordAdmissions, releaseAdmission, runsInFlight, tryLockAdmission, workflowLimits } from '../db/automations/admission.js';
import { planAdmission } from './admission-plan.js';
import { AdmissionBound, type AdmissionSettings } from './admission-bound.js';
import { attempt, attemptAsync, messageOf, temporalUnreachable, type Outcome } from './dispatch-outcomes.js';
import { eventRunOf, manualRunOf, scheduledRunOf, subscribersOf, type PlannedRun } from './event-runs.js';

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

const GRAPH_CACHE_SIZE = 500;

export class OutboxDispatcher {
  private stopped = true;
  private woken = false;
  private wake?: () => void;
  private listener?: pg.Client;
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
    void this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.bound.stop();
    await this.listener?.end().catch(() => {});
  }

  /**
   * One pass: admits what fits of up to `batchSize` pending events and starts their runs; answers how many events it
   * dispatched (0 when another dispatcher is admitting, or nothing fits).
   */
  async dispatchOnce(): Promise<number> {
    return this.deps.orm.em.getKnex().transaction(async (trx) => {
      if (!(await tryLockAdmission(trx))) return 0;
      const inFlight = await runsInFlight(trx);
      const free = (await this.bound.value()) - inFlight;
      if (free <= 0) return 0;
      const claimed = await claimPendingEvents(trx, this.deps.batchSize ?? 100);
      const planned = await this.runsOf(trx, claimed);
      const candidates = claimed.flatMap((event, i) => {
        const runs = planned[i]!;
        return 'runs' in runs ? [{ eventId: event.id, workflowIds: runs.runs.map((r) => r.request.automationId) }] : [];
      });
      const limits = await workflowLimits(trx, [...new Set(candidates.flatMap((c) => c.workflowIds))]);
      const admitted = planAdmission(candidates, { free, inFlight, limits });
      // Events whose runs could not even be worked out fail now; the others wait for a later pass.
      const events = claimed.filter((event, i) => admitted.has(event.id) || !('runs' in planned[i]!));
      const runsOf = (event: PendingEvent) => {
        const runs = planned[claimed.indexOf(event)]!;
        return 'runs' in runs ? runs.runs : [];
      };
      // Counted before they start, in this transaction: a run ending before the commit waits for it (releaseAdmission).
      const starts = events.filter((e) => admitted.has(e.id)).flatMap(runsOf);
      await recordAdmissions(
        trx,
        starts.map((r) => ({ id: r.workflowId, accountId: r.request.accountId, workflowId: r.request.automationId })),
      );
      const outcomes = await Promise.all(
        events.map(async (event) => {
          const runs = planned[claimed.indexOf(event)]!;
          if (!('runs' in runs)) return runs;
          return attemptAsync(() => Promise.all(runs.runs.map((run) => this.startRun(run))));
        }),
      );
      const failures = events.flatMap((event, i) => {
        const outcome = outcomes[i]!;
        return 'error' in outcome ? [{ event, error: outcome.error }] : [];
      });
      const unreachable = failures.find((f) => temporalUnreachable(f.error));
      if (unreachable) throw unreachable.error;
      const failed = new Set(failures.map((f) => f.event.id));
      for (const run of failures.flatMap((f) => runsOf(f.event))) await releaseAdmission(trx, run.workflowId);
      const now = Date.now();
      for (const event of events) if (!failed.has(event.id)) dispatchLag.observe((now - event.createdAt.getTime()) / 1000);
      await markDispatched(
        trx,
        events.filter((e) => !failed.has(e.id)).map((e) => e.id),
      );
      for (const { event, error } of failures) this.deps.log?.(`outbox dispatcher: event ${event.id} (${event.type}) failed: ${messageOf(error)}`);
      await markFailed(
        trx,
        failures.map((f) => ({ event: f.event, error: messageOf(f.error) })),
        { ...DEFAULT_RETRY, ...this.deps.retry },
      );
      return events.length;
    });
  }

  /** The runs each event starts (its Temporal workflow id and input), or why they could not be worked out. */
  private async runsOf(trx: Parameters<typeof loadGraphs>[0], events: PendingEvent[]): Promise<Outcome<{ runs: PlannedRun[] }>[]> {
    const candidates = await findEntryCandidates(
      trx,
      events.filter((e) => !QUEUED_RUNS[e.type]),
      EVENT_ENTRY_TYPES,
    );
    const matched = events.map((event) => (QUEUED_RUNS[event.type] ? { subscribers: [] } : attempt(() => subscribersOf(event, candidates))));
    await this.cacheGraphs(
      trx,
      matched.flatMap((m) => ('subscribers' in m ? m.subscribers.map((s) => s.snapshotId) : [])),
    );
    return events.map((event, i) => {
      const m = matched[i]!;
      if (!('subscribers' in m)) return m;
      return attempt(() => ({
        runs: QUEUED_RUNS[event.type]
          ? [QUEUED_RUNS[event.type]!(event)]
          : m.subscribers.map((sub) => eventRunOf(event, sub, m.subscribers, this.graphs.get(sub.snapshotId)!)),
      }));
    });
  }

  private async cacheGraphs(trx: Parameters<typeof loadGraphs>[0], snapshotIds: string[]): Promise<void> {
    const missing = [...new Set(snapshotIds)].filter((id) => !this.graphs.has(id));
    for (const [id, graph] of await loadGraphs(trx, missing)) {
      if (this.graphs.size >= GRAPH_CACHE_SIZE) this.graphs.delete(this.graphs.keys().next().value!);
      this.graphs.set(id, graph);
    }
  }

  private async startRun(run: PlannedRun): Promise<void> {
    if (run.admitOnly) {
      // A run its schedule started waits for this signal; one that has ended meanwhile needs nothing.
      await this.deps.temporal.workflow
        .getHandle(run.workflowId)
        .signal(ADMITTED_SIGNAL)
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
      return;
    }
    const { workflowId, request } = run;
    try {
      await this.deps.temporal.workflow.start('runAutomation', {
        taskQueue: this.deps.taskQueue,
        workflowId,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [runInput(request)],
        typedSearchAttributes: runSearchAttributes(request),
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

  private async listen(): Promise<void> {
    while (!this.stopped) {
      const client = new pg.Client({ connectionString: this.deps.databaseUrl });
      try {
        const closed = new Promise<void>((resolve) => {
          client.on('error', () => resolve());
          client.on('end', () => resolve());
        });
        client.on('notification', () => {
          this.woken = true;
          this.wake?.();
        });
        await client.connect();
        this.listener = client;
        await client.query(`listen ${OUTBOX_CHANNEL}`);
        if (this.stopped) break;
        await closed;
      } catch (error) {
        this.deps.log?.(`outbox dispatcher: LISTEN failed (${error instanceof Error ? error.message : String(error)}); polling meanwhile`);
      }
      await client.end().catch(() => {});
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
