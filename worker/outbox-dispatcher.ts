/**
 * The outbox dispatcher (DESIGN.md, Events that start runs): hands committed events to Temporal. Each event starts
 * one `runAutomation` per subscribed entry node, with the Temporal workflow id
 * `automation:<automationId>:event-<eventId>` and REJECT_DUPLICATE, then is marked dispatched in the same
 * transaction that locked it. A crash before the commit leaves the event pending and the next pass starts only
 * what is missing; a redelivered event starts nothing twice. It wakes on the NOTIFY that writers send after
 * committing events (db/outbox-notifier.ts) and polls as a safety net. Several dispatchers (one per worker process)
 * share the work through SKIP LOCKED.
 *
 * An event whose dispatch fails (Temporal refuses its run, a bug in matching) fails alone: the rest of its batch is
 * dispatched, and it is retried with backoff, then parked after `retry.maxAttempts` (`npm run admin -- outbox`).
 * Temporal being unreachable is nobody's event's fault: then the whole pass is retried and no attempt is counted.
 */
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { isGrpcServiceError, ServiceError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Orm } from '../db/orm.js';
import { OUTBOX_CHANNEL } from '../db/outbox-notifier.js';
import {
  claimPendingEvents,
  findEntryCandidates,
  loadGraphs,
  markDispatched,
  markFailed,
  type EntryCandidate,
  type PendingEvent,
  type RetryPolicy,
  type Subscriber,
} from '../db/automations/event-subscribers.js';
import { EVENT_ENTRY_TYPES, entryMatches, nodeFactsOf } from '../activities/nodes/registry.js';
import { closesLoop, triggerPayloadOf } from '../lib/events/event-match.js';
import { dispatchLag } from '../lib/metrics.js';
import type { Graph } from '../lib/graph/graph.js';
import { automationRunId, runInput, runSearchAttributes, type RunStartRequest } from '../lib/runtime/run-start.js';

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
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, baseMs: 1_000, maxMs: 300_000 };

/** gRPC codes that mean Temporal could not be reached or did not answer in time (UNAVAILABLE, DEADLINE_EXCEEDED). */
const UNREACHABLE = new Set([14, 4]);

/** Whether a start failed because Temporal is unreachable, which no event causes and retrying the pass cures. */
function temporalUnreachable(error: unknown): boolean {
  const cause = error instanceof ServiceError ? (error.cause ?? error) : error;
  return isGrpcServiceError(cause) && UNREACHABLE.has(cause.code);
}

/** An error's message with the messages of its causes (the Temporal client wraps the server's reason). */
function messageOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 4; e = (e as { cause?: unknown }).cause) parts.push(e instanceof Error ? e.message : String(e));
  return parts.join(': ');
}

type Outcome<T> = T | { error: unknown };

function attempt<T extends object>(work: () => T): Outcome<T> {
  try {
    return work();
  } catch (error) {
    return { error };
  }
}

async function attemptAsync(work: () => Promise<unknown>): Promise<Outcome<{ ok: true }>> {
  try {
    await work();
    return { ok: true };
  } catch (error) {
    return { error };
  }
}

/** The entry nodes among `candidates` that `event` starts. */
function subscribersOf(event: PendingEvent, candidates: EntryCandidate[]): { subscribers: Subscriber[] } {
  const subscribers = candidates
    .filter((c) => c.accountId === event.accountId && entryMatches(c.node, event))
    .map((c) => ({ automationId: c.automationId, snapshotId: c.snapshotId, entry: c.node }));
  return { subscribers };
}

const GRAPH_CACHE_SIZE = 500;

export class OutboxDispatcher {
  private stopped = true;
  private woken = false;
  private wake?: () => void;
  private listener?: pg.Client;
  private loop?: Promise<void>;
  /** Live snapshots are immutable, so their graphs are cached by snapshot id. */
  private readonly graphs = new Map<string, Graph>();

  constructor(private readonly deps: DispatcherDeps) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => {});
  }

  /** One pass: starts the runs of up to `batchSize` pending events; answers how many events it handled. */
  async dispatchOnce(): Promise<number> {
    return this.deps.orm.em.getKnex().transaction(async (trx) => {
      const events = await claimPendingEvents(trx, this.deps.batchSize ?? 100);
      const candidates = await findEntryCandidates(trx, events, EVENT_ENTRY_TYPES);
      const matched = events.map((event) => attempt(() => subscribersOf(event, candidates)));
      await this.cacheGraphs(
        trx,
        matched.flatMap((m) => ('subscribers' in m ? m.subscribers.map((s) => s.snapshotId) : [])),
      );
      const outcomes = await Promise.all(
        events.map(async (event, i) => {
          const m = matched[i]!;
          if (!('subscribers' in m)) return m;
          const { subscribers } = m;
          return attemptAsync(() => Promise.all(subscribers.map((sub) => this.startRun(event, sub, subscribers))));
        }),
      );
      const failures = events.flatMap((event, i) => {
        const outcome = outcomes[i]!;
        return 'error' in outcome ? [{ event, error: outcome.error }] : [];
      });
      const unreachable = failures.find((f) => temporalUnreachable(f.error));
      if (unreachable) throw unreachable.error;
      const failed = new Set(failures.map((f) => f.event.id));
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

  private async cacheGraphs(trx: Parameters<typeof loadGraphs>[0], snapshotIds: string[]): Promise<void> {
    const missing = [...new Set(snapshotIds)].filter((id) => !this.graphs.has(id));
    for (const [id, graph] of await loadGraphs(trx, missing)) {
      if (this.graphs.size >= GRAPH_CACHE_SIZE) this.graphs.delete(this.graphs.keys().next().value!);
      this.graphs.set(id, graph);
    }
  }

  private async startRun(event: PendingEvent, sub: Subscriber, all: Subscriber[]): Promise<void> {
    // One run per (event, workflow); a workflow with several entry nodes for the event gets one per node.
    const several = all.filter((s) => s.automationId === sub.automationId).length > 1;
    const graph = this.graphs.get(sub.snapshotId)!;
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
    try {
      await this.deps.temporal.workflow.start('runAutomation', {
        taskQueue: this.deps.taskQueue,
        workflowId: automationRunId(sub.automationId, `event-${event.id}${several ? `-${sub.entry.nodeId}` : ''}`),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [runInput(request)],
        typedSearchAttributes: runSearchAttributes(request),
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
        await this.sleep(Math.min(30_000, 250 * 2 ** failures));
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
