/**
 * The admission bound (README, Processes and scaling out): how many automation runs may be in flight at once over
 * every worker. `RUN_CONCURRENCY` sets it outright; by default it is `RUN_SLOTS_PER_WORKER` times the worker
 * processes serving runs that are alive (each dispatcher marks its process alive in `worker_heartbeats` every few
 * seconds), so adding a worker raises it and a dead worker's share goes away within `LIVE_WINDOW_MS`.
 */
import { hostname } from 'node:os';
import type { Knex } from '@mikro-orm/postgresql';
import { liveWorkers, markWorkerAlive } from '../db/automations/admission.js';
import { DEFAULT_SLOTS_PER_WORKER } from '../lib/config.js';

export interface AdmissionSettings {
  /** A fixed bound; null: derived from the live workers. */
  runConcurrency: number | null;
  /** Runs in flight per live worker process when the bound is derived. */
  slotsPerWorker: number;
  /** This worker process, as its heartbeat row names it. */
  identity: string;
}

const REFRESH_MS = 5_000;
const LIVE_WINDOW_MS = 20_000;

export class AdmissionBound {
  private readonly settings: AdmissionSettings;
  private workers?: { count: number; at: number };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly knex: Knex,
    private readonly taskQueue: string,
    settings: Partial<AdmissionSettings> = {},
  ) {
    this.settings = {
      runConcurrency: settings.runConcurrency ?? null,
      slotsPerWorker: settings.slotsPerWorker ?? DEFAULT_SLOTS_PER_WORKER,
      identity: settings.identity ?? `${process.pid}@${hostname()}`,
    };
  }

  /** Keeps this process's heartbeat fresh while its dispatcher runs. */
  start(): void {
    this.timer ??= setInterval(() => void this.refresh().catch(() => {}), REFRESH_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The bound now. */
  async value(): Promise<number> {
    if (this.settings.runConcurrency !== null) return this.settings.runConcurrency;
    if (!this.workers || Date.now() - this.workers.at > REFRESH_MS) await this.refresh();
    return this.settings.slotsPerWorker * Math.max(1, this.workers!.count);
  }

  private async refresh(): Promise<void> {
    await markWorkerAlive(this.knex, this.settings.identity, this.taskQueue);
    this.workers = { count: await liveWorkers(this.knex, this.taskQueue, LIVE_WINDOW_MS), at: Date.now() };
  }
}
