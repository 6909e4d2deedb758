/**
 * The outbox dispatcher (DESIGN.md, Events that start runs): hands committed events to Temporal. Each event starts
 * one `runAutomation` per subscribed entry node, with the workflow id `automation:<workflowId>:event-<eventId>` and
 * REJECT_DUPLICATE, then is marked dispatched in the same transaction that locked it. A crash before the commit
 * leaves the event pending and the next pass starts only what is missing; a redelivered event starts nothing twice.
 * It wakes on the NOTIFY that writers send after committing events (db/outbox-notifier.ts) and polls as a safety
 * net. Several dispatchers (one per worker process) share the work through SKIP LOCKED.
 */
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Orm } from '../db/orm.js';
import { OUTBOX_CHANNEL } from '../db/outbox-notifier.js';
import { claimPendingEvents, findSubscribers, loadGraphs, markDispatched, type PendingEvent, type Subscriber } from '../db/workflows/event-subscribers.js';
import { closesLoop, triggerPayloadOf } from '../lib/events/event-match.js';
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
  log?: (message: string) => void;
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
      const subscribers = await findSubscribers(trx, events);
      const starts = events.map((event) => ({ event, subscribers: subscribers.get(event.id) ?? [] }));
      await this.cacheGraphs(trx, starts.flatMap((s) => s.subscribers.map((sub) => sub.snapshotId)));
      await Promise.all(starts.flatMap(({ event, subscribers }) => subscribers.map((sub) => this.startRun(event, sub, subscribers))));
      await markDispatched(trx, events.map((e) => e.id));
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
    const several = all.filter((s) => s.workflowId === sub.workflowId).length > 1;
    const request: RunStartRequest = {
      accountId: event.accountId,
      workflowId: sub.workflowId,
      snapshotId: sub.snapshotId,
      graph: this.graphs.get(sub.snapshotId)!,
      entryNodeId: sub.entry.nodeId,
      triggerPayload: triggerPayloadOf(event),
      trigger: { type: event.type, eventId: event.id },
      chain: event.chain ?? [],
      preventedLoop: closesLoop(event.chain, sub.workflowId),
    };
    try {
      await this.deps.temporal.workflow.start('runAutomation', {
        taskQueue: this.deps.taskQueue,
        workflowId: automationRunId(sub.workflowId, `event-${event.id}${several ? `-${sub.entry.nodeId}` : ''}`),
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
