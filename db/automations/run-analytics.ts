/**
 * Workflow analytics from the run ledger (`workflow_runs`), computed in SQL: runs per day in UTC, every day of the
 * range listed (days without runs as zeros, so a chart needs no gap filling), by the day each run started.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';

/** Longest range one request may ask for, in days. */
export const MAX_ANALYTICS_DAYS = 366;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

export interface RunsOfDay {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  totalRuns: number;
  /** Successful runs. */
  completedRuns: number;
  failedRuns: number;
  /** Runs still running. */
  pendingRuns: number;
  cancelledRuns: number;
  totalCredits: number;
}

export interface AutomationAnalytics {
  startDate: string;
  endDate: string;
  runsByDate: RunsOfDay[];
  summary: { totalRuns: number; totalCredits: number; averageCreditsPerRun: number; nonExecutedRuns: number };
}

const day = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * The days to report: `endDate` defaults to today (or to `startDate` when that is later), `startDate` to the day that
 * makes the range `DEFAULT_DAYS` days long; so without either, the last 30 days, today included.
 */
export function analyticsRange(start: Date | undefined, end: Date | undefined, now = new Date()): { startDate: string; endDate: string } {
  const last = end ?? (start ? new Date(Math.max(start.getTime(), now.getTime())) : now);
  const first = start ?? new Date(Date.parse(day(last)) - (DEFAULT_DAYS - 1) * DAY_MS);
  const startDate = day(first);
  const endDate = day(last);
  if (endDate < startDate) throw new BadRequestError('endDate is before startDate', 'query.endDate');
  if ((Date.parse(endDate) - Date.parse(startDate)) / DAY_MS + 1 > MAX_ANALYTICS_DAYS) {
    throw new BadRequestError(`The range from startDate to endDate spans more than ${MAX_ANALYTICS_DAYS} days`, 'query.startDate');
  }
  return { startDate, endDate };
}

interface DayRow {
  date: string;
  total_runs: number;
  completed_runs: number;
  failed_runs: number;
  pending_runs: number;
  cancelled_runs: number;
  non_executed_runs: number;
  total_credits: number;
}

/** Runs of one automation between two UTC days, both included. */
export async function automationAnalytics(
  em: EntityManager,
  automationId: number,
  range: { startDate: string; endDate: string },
): Promise<AutomationAnalytics> {
  const result = await em.getKnex().raw(
    `select to_char(d.day, 'YYYY-MM-DD') as date,
            count(r.id)::int as total_runs,
            count(r.id) filter (where r.status = 'successful')::int as completed_runs,
            count(r.id) filter (where r.status = 'failed')::int as failed_runs,
            count(r.id) filter (where r.status = 'running')::int as pending_runs,
            count(r.id) filter (where r.status = 'cancelled')::int as cancelled_runs,
            count(r.id) filter (where r.prevented_loop or r.insufficient_credits)::int as non_executed_runs,
            coalesce(sum(r.ai_credits), 0)::float8 as total_credits
       from generate_series(?::timestamp, ?::timestamp, interval '1 day') as d(day)
       left join workflow_runs r
         on r.workflow_id = ?
        and r.started_at >= d.day at time zone 'UTC'
        and r.started_at < (d.day + interval '1 day') at time zone 'UTC'
      group by d.day
      order by d.day`,
    [range.startDate, range.endDate, automationId],
  );
  const rows = result.rows as DayRow[];
  const totalRuns = rows.reduce((sum, r) => sum + r.total_runs, 0);
  const totalCredits = rows.reduce((sum, r) => sum + r.total_credits, 0);
  return {
    ...range,
    runsByDate: rows.map((r) => ({
      date: r.date,
      totalRuns: r.total_runs,
      completedRuns: r.completed_runs,
      failedRuns: r.failed_runs,
      pendingRuns: r.pending_runs,
      cancelledRuns: r.cancelled_runs,
      totalCredits: r.total_credits,
    })),
    summary: {
      totalRuns,
      totalCredits,
      averageCreditsPerRun: totalRuns ? totalCredits / totalRuns : 0,
      nonExecutedRuns: rows.reduce((sum, r) => sum + r.non_executed_runs, 0),
    },
  };
}
