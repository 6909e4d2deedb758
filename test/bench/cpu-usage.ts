/**
 * CPU time used by the processes of a benchmark, from /proc (Linux): the Temporal server, the API, the worker
 * processes and PostgreSQL (every backend, so other databases' work on the same server counts too). `usage()`
 * snapshots; `since(before)` answers the seconds each group used since.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type CpuGroup = 'temporal' | 'api' | 'worker' | 'postgres';

const TICKS_PER_SECOND = 100;

function groupOf(cmdline: string): CpuGroup | undefined {
  if (cmdline.includes('start-dev') || cmdline.includes('temporal-server')) return 'temporal';
  if (cmdline.includes('api-process.ts') || cmdline.includes('api/server.ts')) return 'api';
  if (cmdline.includes('worker/main.ts')) return 'worker';
  if (cmdline.startsWith('postgres')) return 'postgres';
  return undefined;
}

/** Clock ticks used so far by each process of a group, by pid. */
export function usage(): Map<number, { group: CpuGroup; ticks: number }> {
  const found = new Map<number, { group: CpuGroup; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const group = groupOf(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
      if (!group) continue;
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      found.set(Number(entry), { group, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

/** CPU seconds each group used since `before` (processes started since count from zero). */
export function since(before: ReturnType<typeof usage>): Record<CpuGroup, number> {
  const seconds: Record<CpuGroup, number> = { temporal: 0, api: 0, worker: 0, postgres: 0 };
  for (const [pid, now] of usage()) seconds[now.group] += (now.ticks - (before.get(pid)?.ticks ?? 0)) / TICKS_PER_SECOND;
  return seconds;
}
