/**
 * The per-run cost table of the benchmarks (issue 29): what a run costs in counts, which do not depend on how busy
 * the machine is. PostgreSQL round trips per run and process, by statement (test/bench/query-counter.mjs), Temporal
 * history events, workflow tasks, activities and local activities per run (from the runs' histories), and where a
 * run's time goes (webhook answer, event written → workflow started, start → close, close → seen by the caller).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { percentile } from './bench-processes.js';

type Counts = Map<string, number>;

/** Statement counts of child processes (by role), read on demand (SIGWINCH). */
export class QueryCounts {
  constructor(
    private readonly folder: string,
    private readonly pids: Record<string, number>,
  ) {}

  /** The counts of every process now. */
  async snapshot(): Promise<Record<string, Counts>> {
    const asked = Date.now();
    const roles = Object.entries(this.pids);
    for (const [role, pid] of roles) {
      try {
        process.kill(pid, 'SIGWINCH');
      } catch (error) {
        throw new Error(`${role} (pid ${pid}) is gone: ${String(error)}`);
      }
    }
    const out: Record<string, Counts> = {};
    for (const [role, pid] of roles) {
      const file = join(this.folder, `${pid}.json`);
      for (let i = 0; ; i += 1) {
        const read = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { at: number; counts: Record<string, number> }) : null;
        if (read && read.at >= asked) {
          out[role] = new Map(Object.entries(read.counts));
          break;
        }
        if (i > 500) throw new Error(`no query counts from ${role} (pid ${pid})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    return out;
  }
}

/** `after - before`, per role and statement. */
export function countsBetween(before: Record<string, Counts>, after: Record<string, Counts>): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  for (const [role, counts] of Object.entries(after)) {
    out[role] = new Map();
    for (const [sql, n] of counts) {
      const delta = n - (before[role]?.get(sql) ?? 0);
      if (delta > 0) out[role].set(sql, delta);
    }
  }
  return out;
}

const TRANSACTION = /^(begin|commit|rollback|savepoint|release)\b/i;

/** A statement's short name: its verb and first table (`insert workflow_runs`), or the function it calls. */
export function statementLabel(sql: string): string {
  if (TRANSACTION.test(sql)) return sql.split(/[ ;]/)[0]!.toLowerCase();
  const notify = /pg_notify|^listen/i.exec(sql);
  if (notify) return notify[0].toLowerCase();
  const lock = /pg_try_advisory_xact_lock/i.exec(sql);
  if (lock) return 'select pg_try_advisory_xact_lock';
  const verb = (/^\s*(\w+)/.exec(sql)?.[1] ?? '?').toLowerCase();
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(sql)?.[1];
  return table ? `${verb} ${table}` : sql.slice(0, 40);
}

/** Round trips per run of each process: total, transaction control, and by statement label. */
export function perRunStatements(counts: Record<string, Counts>, runs: number) {
  return Object.entries(counts).map(([role, byStatement]) => {
    const labels = new Map<string, number>();
    let total = 0;
    let control = 0;
    for (const [sql, n] of byStatement) {
      total += n;
      if (TRANSACTION.test(sql)) control += n;
      const label = statementLabel(sql);
      labels.set(label, (labels.get(label) ?? 0) + n);
    }
    return {
      role,
      roundTrips: total / runs,
      statements: (total - control) / runs,
      transactions: [...byStatement].filter(([sql]) => /^begin\b/i.test(sql)).reduce((sum, [, n]) => sum + n, 0) / runs,
      labels: [...labels].sort((a, b) => b[1] - a[1]).map(([label, n]) => ({ label, perRun: n / runs })),
    };
  });
}

const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;

/** Temporal's work per run, from the histories of `workflowIds`: medians of each count. */
export async function historyCost(client: Client, workflowIds: string[]) {
  const per = await Promise.all(
    workflowIds.map(async (id) => {
      const history = await client.workflow.getHandle(id).fetchHistory();
      const events = history.events ?? [];
      const count = (type: number) => events.filter((e) => e.eventType === type).length;
      return {
        events: events.length,
        bytes: temporal.api.history.v1.History.encode(history).finish().length,
        workflowTasks: count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
        activities: count(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
        localActivities: events.filter(
          (e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
        ).length,
        other: [
          ...new Set(
            events
              .filter(
                (e) =>
                  e.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED ||
                  e.eventType === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
              )
              .map((e) => EventType[e.eventType!]!.replace('EVENT_TYPE_', '').toLowerCase()),
          ),
        ],
      };
    }),
  );
  const median = (key: 'events' | 'bytes' | 'workflowTasks' | 'activities' | 'localActivities') =>
    percentile(
      per.map((p) => p[key]),
      50,
    );
  return {
    events: median('events'),
    bytes: median('bytes'),
    workflowTasks: median('workflowTasks'),
    activities: median('activities'),
    localActivities: median('localActivities'),
    other: [...new Set(per.flatMap((p) => p.other))],
  };
}

/** A run's timeline in wall-clock milliseconds: sent, answered, written (the outbox event), started, closed, seen. */
export interface Timeline {
  sent: number;
  answered: number;
  written?: number;
  started: number;
  closed: number;
  seen: number;
}

/** Where the time of runs went: p50 of each step. */
export function timeSplit(timelines: Timeline[]) {
  const p50 = (f: (t: Timeline) => number) => percentile(timelines.map(f), 50);
  return {
    answer: p50((t) => t.answered - t.sent),
    answeredToStart: p50((t) => t.started - t.answered),
    toStart: p50((t) => t.started - (t.written ?? t.sent)),
    run: p50((t) => t.closed - t.started),
    toSeen: p50((t) => t.seen - t.closed),
    total: p50((t) => t.seen - t.sent),
  };
}

/** The workflow's start and close times in Temporal. */
export async function startAndClose(client: Client, workflowId: string): Promise<{ started: number; closed: number }> {
  const { startTime, closeTime } = await client.workflow.getHandle(workflowId).describe();
  return { started: startTime.getTime(), closed: closeTime!.getTime() };
}

/** One measured run: its Temporal workflow id, its outbox event (agentry's) and its timeline. */
export interface RunCost {
  workflowId: string;
  eventId?: string;
  timeline: Timeline;
}

interface Window {
  from: Record<string, Counts>;
  to: Record<string, Counts>;
  seconds: number;
}

const HISTORY_SAMPLE = 10;

/** Prints the per-run cost table of the webhook runs and the chain, with the baseline beside them. */
export async function printRunCost(
  client: Client,
  m: {
    runs: number;
    costs: { agentry: RunCost[]; baseline: RunCost[] };
    idle: Window;
    phase: Window;
    chain: { from: Record<string, Counts>; to: Record<string, Counts>; runs: number; nodes: number; workflowIds: string[] };
  },
): Promise<void> {
  const phase = perRunStatements(countsBetween(m.phase.from, m.phase.to), m.runs);
  const idle = perRunStatements(countsBetween(m.idle.from, m.idle.to), m.idle.seconds);
  const of = (rows: ReturnType<typeof perRunStatements>, role: string) =>
    rows.find((r) => r.role === role) ?? { role, roundTrips: 0, statements: 0, transactions: 0, labels: [] };
  const [api, worker, baseline] = ['API', 'worker', 'baseline'].map((role) => of(phase, role));
  const sample = (costs: RunCost[]) => costs.slice(-HISTORY_SAMPLE).map((c) => c.workflowId);
  const [ours, theirs] = await Promise.all([historyCost(client, sample(m.costs.agentry)), historyCost(client, sample(m.costs.baseline))]);
  const [split, baseSplit] = [timeSplit(m.costs.agentry.map((c) => c.timeline)), timeSplit(m.costs.baseline.map((c) => c.timeline))];
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const rows: [string, string, string][] = [
    [
      'PostgreSQL round trips',
      `${n(api!.roundTrips + worker!.roundTrips)} (API ${n(api!.roundTrips)}, worker ${n(worker!.roundTrips)})`,
      n(baseline!.roundTrips),
    ],
    [
      '  of which statements (not begin/commit)',
      `${n(api!.statements + worker!.statements)} (API ${n(api!.statements)}, worker ${n(worker!.statements)})`,
      n(baseline!.statements),
    ],
    ['  transactions', n(api!.transactions + worker!.transactions), n(baseline!.transactions)],
    [
      'Temporal history events',
      `${n(ours.events)} (${(ours.bytes / 1024).toFixed(1)} kB)`,
      `${n(theirs.events)} (${(theirs.bytes / 1024).toFixed(1)} kB)`,
    ],
    ['workflow tasks', n(ours.workflowTasks), n(theirs.workflowTasks)],
    ['activities / local activities', `${n(ours.activities)} / ${n(ours.localActivities)}`, `${n(theirs.activities)} / ${n(theirs.localActivities)}`],
    ['other history events', ours.other.join(', ') || '-', theirs.other.join(', ') || '-'],
    ['p50 call → answered (202 / -)', ms(split.answer), '-'],
    ['p50 event written → workflow started', ms(split.toStart), `${ms(baseSplit.toStart)} (call → started)`],
    ['  p50 202 answered → workflow started', ms(split.answeredToStart), '-'],
    ['p50 workflow start → close', ms(split.run), ms(baseSplit.run)],
    ['p50 close → seen by the caller', ms(split.toSeen), ms(baseSplit.toSeen)],
    ['p50 call → seen completed', ms(split.total), ms(baseSplit.total)],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  const second = Math.max(...rows.map((r) => r[1].length), 'agentry'.length);
  console.log(`\nper-run cost: ${m.runs} sequential webhook → completed runs (counts per run; histories of the last ${HISTORY_SAMPLE})`);
  console.log(`  ${''.padEnd(width)}  ${'agentry'.padEnd(second)}  plain Temporal baseline`);
  for (const [label, a, b] of rows) console.log(`  ${label.padEnd(width)}  ${a.padEnd(second)}  ${b}`);
  const background = of(idle, 'API').roundTrips + of(idle, 'worker').roundTrips;
  console.log(
    `  idle background (dispatcher polls, heartbeats): ${background.toFixed(1)} round trips/s, ≈ ${((background * m.phase.seconds) / m.runs).toFixed(2)} per run at this pace (included above)`,
  );
  for (const row of [api!, worker!])
    console.log(`  ${row.role} statements per run: ${row.labels.map(({ label, perRun }) => `${label} ${n(Number(perRun.toFixed(2)))}`).join(', ')}`);
  const chain = perRunStatements(countsBetween(m.chain.from, m.chain.to), m.chain.runs);
  const chainHistory = await historyCost(client, m.chain.workflowIds.slice(-HISTORY_SAMPLE));
  const chainTrips = of(chain, 'API').roundTrips + of(chain, 'worker').roundTrips;
  console.log(
    `chain of ${m.chain.nodes} API nodes (manual runs), per run: ${n(chainTrips)} PostgreSQL round trips (${(chainTrips / m.chain.nodes).toFixed(2)} per node), ` +
      `${n(chainHistory.events)} history events (${(chainHistory.bytes / 1024).toFixed(1)} kB), ${n(chainHistory.workflowTasks)} workflow tasks, ` +
      `${n(chainHistory.activities)} activities, ${n(chainHistory.localActivities)} local activities`,
  );
  console.log(
    `  worker statements per chain run: ${of(chain, 'worker')
      .labels.map(({ label, perRun }) => `${label} ${n(Number(perRun.toFixed(2)))}`)
      .join(', ')}`,
  );
}
