/**
 * The admission bound (README, Processes and scaling out): how many automation runs may be in flight at once over
 * every worker. `RUN_CONCURRENCY` sets it outright; by default it is a number of slots per worker process times the
 * worker processes serving runs that are alive (each dispatcher marks its process alive in `worker_heartbeats`
 * every few seconds), so adding a worker raises it and a dead worker's share goes away within `LIVE_WINDOW_MS`.
 * The slots start at `RUN_SLOTS_PER_WORKER` and follow the completion rate they give (worker/bound-tuner.ts), from
 * windows of `TUNING_WINDOW_MS` in which runs waited in the outbox throughout: every dispatcher reads the same
 * figures (runs ended, events pending) from the database.
 */
import { hostname } from 'node:os';
import type { Knex } from '@mikro-orm/postgresql';
import { admissionWindow, liveWorkers, markWorkerAlive } from '../db/automations/admission.js';
import { DEFAULT_SLOTS_PER_WORKER } from '../lib/config.js';
import { BoundTuner } from './bound-tuner.js';
import { admissionSlots } from '../lib/metrics.js';

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
export const TUNING_WINDOW_MS = 10_000;
/** Tuned slots per worker stay within [1, this many times RUN_SLOTS_PER_WORKER]. */
const MAX_SLOTS_FACTOR = 4;

export class AdmissionBound {
  private readonly settings: AdmissionSettings;
  private workers?: { count: number; at: number };
  private timer?: NodeJS.Timeout;
  private readonly tuner: BoundTuner;
  /** The start of the tuning window: when, and whether the bound held runs back then. */
  private window?: { at: Date; full: boolean };

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
    const slots = this.settings.slotsPerWorker;
    this.tuner = new BoundTuner({ min: 1, max: slots * MAX_SLOTS_FACTOR }, slots);
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
    return this.tuner.bound * Math.max(1, this.workers!.count);
  }

  private async refresh(): Promise<void> {
    await markWorkerAlive(this.knex, this.settings.identity, this.taskQueue);
    this.workers = { count: await liveWorkers(this.knex, this.taskQueue, LIVE_WINDOW_MS), at: Date.now() };
    if (this.settings.runConcurrency === null) await this.tune();
  }

  /** Closes the tuning window when it is over: the bound for the next one follows the rate this one gave. */
  private async tune(): Promise<void> {
    if (this.window && Date.now() - this.window.at.getTime() < TUNING_WINDOW_MS) return;
    const now = await admissionWindow(this.knex, this.window?.at ?? new Date());
    // The bound held runs back: some wait while the runs in flight nearly fill it (a run may have just ended).
    const full = now.waiting && now.inFlight >= 0.75 * this.tuner.bound * Math.max(1, this.workers?.count ?? 1);
    if (this.window) {
      const seconds = (now.at.getTime() - this.window.at.getTime()) / 1000;
      admissionSlots.set(this.tuner.observe({ completions: now.ended, seconds, saturated: this.window.full && full }));
    }
    this.window = { at: now.at, full };
  }
}
