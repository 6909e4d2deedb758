/**
 * Memory and descriptors of the soak's processes, read from /proc every few seconds: each process's resident set
 * (VmRSS) and open file descriptors, per process instance (a restarted process is a new instance). After the run,
 * `levelling` judges each instance that lived long enough: its values at the end against those in the middle of its
 * life after warm-up, which must not have grown by more than 10 % (descriptors: and by more than 3, since a few
 * sockets open and close with the load).
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
  rss: { middleMiB: number; endMiB: number; growth: number };
  fds: { middle: number; end: number; growth: number };
  ok: boolean;
}

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

  /** Instances sampled from before `from` until `to`: their middle (after `from`) against their end. */
  levelling(from: number, to: number): Levelling[] {
    const judged: Levelling[] = [];
    for (const [key, all] of this.samples) {
      const samples = all.filter((s) => s.at >= from && s.at <= to);
      if (all[0]!.at > from || samples.length < 10 || samples.at(-1)!.at < to - 10_000) continue;
      const [name, pid] = key.split('#') as [string, string];
      const n = samples.length;
      const middle = samples.slice(Math.floor(n * 0.4), Math.ceil(n * 0.6));
      const end = samples.slice(Math.floor(n * 0.9));
      const of = (list: Sample[], field: 'rssKiB' | 'fds') => median(list.map((s) => s[field]));
      const rss = { middleMiB: of(middle, 'rssKiB') / 1024, endMiB: of(end, 'rssKiB') / 1024, growth: 0 };
      rss.growth = rss.endMiB / rss.middleMiB - 1;
      const fds = { middle: of(middle, 'fds'), end: of(end, 'fds'), growth: 0 };
      fds.growth = fds.end / fds.middle - 1;
      const ok = rss.growth <= 0.1 && (fds.growth <= 0.1 || fds.end - fds.middle <= 3);
      judged.push({ process: name, pid: Number(pid), samples: n, rss, fds, ok });
    }
    return judged.sort((a, b) => a.process.localeCompare(b.process));
  }
}
