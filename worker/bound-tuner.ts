/**
 * Tunes the admission bound from the completion rate it gives (README, Processes and scaling out): pure, so the
 * rule is read and tested in one place. Only windows in which runs waited in the outbox the whole time say anything
 * about capacity (below that, completions follow arrivals, whatever the bound); from those it climbs:
 *  - a step that raised completions per second by more than `gain` is followed by another in the same direction;
 *  - a step that lowered them by more than `gain` is undone (the next step goes the other way);
 *  - a step that changed nothing worth it is followed by a step down: the same rate with fewer runs in flight is
 *    the same throughput at a lower latency for every run.
 * Steps are a quarter of the bound (at least 1), within [min, max].
 */
export interface TunerWindow {
  /** Runs that ended during the window, over every worker. */
  completions: number;
  seconds: number;
  /** Runs waited in the outbox from the window's start to its end. */
  saturated: boolean;
}

export interface TunerLimits {
  min: number;
  max: number;
  /** A relative change of the rate that counts (default 0.05). */
  gain?: number;
}

export class BoundTuner {
  private last?: { bound: number; rate: number };
  private direction: 1 | -1 = 1;
  private current: number;

  constructor(
    private readonly limits: TunerLimits,
    start: number,
  ) {
    this.current = clamp(start, limits);
  }

  get bound(): number {
    return this.current;
  }

  /** Takes the window measured at the current bound; answers the bound for the next window. */
  observe(window: TunerWindow): number {
    if (!window.saturated || window.seconds <= 0) {
      this.last = undefined;
      return this.current;
    }
    const rate = window.completions / window.seconds;
    const gain = this.limits.gain ?? 0.05;
    if (this.last && this.last.bound !== this.current) {
      const change = (rate - this.last.rate) / Math.max(this.last.rate, 1e-9);
      const movedUp = this.current > this.last.bound;
      if (change > gain) this.direction = movedUp ? 1 : -1;
      else if (change < -gain) this.direction = movedUp ? -1 : 1;
      else this.direction = -1;
    }
    this.last = { bound: this.current, rate };
    const step = Math.max(1, Math.round(this.current / 4));
    const next = clamp(this.current + this.direction * step, this.limits);
    // At a limit, the next step turns around so the climb keeps probing.
    if (next === this.current) this.direction = this.direction === 1 ? -1 : 1;
    this.current = next;
    return next;
  }
}

const clamp = (n: number, { min, max }: TunerLimits) => Math.min(max, Math.max(min, n));
