/**
 * Memory and descriptors of the soak's processes, read from /proc every few seconds: each process's resident set
 * (VmRSS) and open file descriptors, per process instance (a restarted process is a new instance). After the run,
 * `levelling` judges each instance that lived long enough: its values at the end of the run (the median of its last
 * tenth) against the highest of the first half after warm-up, which they must not exceed by more than 10 %. A leak
 * grows past every earlier high; a pool of connections or a heap between collections goes up and down within it.
 * Descriptors get a few more of slack than the 10 %: a process's PostgreSQL pool (0 to 10 connections) and its
 * keep-alive sockets open and close with the load, so a short run whose first half never filled the pool would
 * otherwise read a pool opening its last connections as a leak (42 → 47 descriptors in a 90-second run).
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Sample {
  at: number;
  rssKiB: number;
  fds: number;
}

export interface Levelling {
  process: string;
  pid: number;
  samples: number;
  rss: { firstHighMiB: number; endMiB: number; growth: number };
  fds: { firstHigh: number; end: number; growth: number };
  ok: boolean;
  /** Descriptors and RSS (MiB) at ten moments from `from` to `to`, for the report of a process that grew. */
  series: { fds: number[]; rssMiB: number[] };
}

/** Descriptors a process may end above its first-half high besides the 10 %: its pool's size. */
export const DESCRIPTOR_SLACK = 10;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export class ResourceSampler {
  private readonly samples = new Map<string, Sample[]>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly processes: string[],
    private readonly pid: (name: string) => number | undefined,
  ) {}

  start(everyMs = 2_000): void {
    const sample = () => {
      for (const name of this.processes) {
        const pid = this.pid(name);
        if (!pid) continue;
        try {
          const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
          const fds = readdirSync(`/proc/${pid}/fd`).length;
          const key = `${name}#${pid}`;
          this.samples.set(key, [...(this.samples.get(key) ?? []), { at: Date.now(), rssKiB, fds }]);
        } catch {
          // The process died between reading its pid and its files.
        }
      }
    };
    sample();
    this.timer = setInterval(sample, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Instances sampled from before `from` until `to`: their end against the high of their first half after `from`. */
  levelling(from: number, to: number): Levelling[] {
    const judged: Levelling[] = [];
    for (const [key, all] of this.samples) {
      const samples = all.filter((s) => s.at >= from && s.at <= to);
      if (all[0]!.at > from || samples.length < 10 || samples.at(-1)!.at < to - 10_000) continue;
      const [name, pid] = key.split('#') as [string, string];
      const n = samples.length;
      const firstHalf = samples.slice(0, Math.floor(n / 2));
      const end = samples.slice(Math.floor(n * 0.9));
      const highest = (list: Sample[], field: 'rssKiB' | 'fds') => Math.max(...list.map((s) => s[field]));
      const last = (field: 'rssKiB' | 'fds') => median(end.map((s) => s[field]));
      const rss = { firstHighMiB: highest(firstHalf, 'rssKiB') / 1024, endMiB: last('rssKiB') / 1024, growth: 0 };
      rss.growth = rss.endMiB / rss.firstHighMiB - 1;
      const fds = { firstHigh: highest(firstHalf, 'fds'), end: last('fds'), growth: 0 };
      fds.growth = fds.end / fds.firstHigh - 1;
      const ok = rss.growth <= 0.1 && fds.end <= fds.firstHigh * 1.1 + DESCRIPTOR_SLACK;
      const moments = Array.from({ length: 10 }, (_, i) => samples[Math.floor((i * (n - 1)) / 9)]!);
      const series = { fds: moments.map((s) => s.fds), rssMiB: moments.map((s) => Math.round(s.rssKiB / 1024)) };
      judged.push({ process: name, pid: Number(pid), samples: n, rss, fds, ok, series });
    }
    return judged.sort((a, b) => a.process.localeCompare(b.process));
  }
}
