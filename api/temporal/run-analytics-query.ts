/** `GET /workflows/{id}/analytics`: the query's nullable dates turned into a range, then the ledger's counts. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { analyticsRange, automationAnalytics, type AutomationAnalytics } from '../../db/automations/run-analytics.js';
import { parseDateBound } from './run-logs.js';

/** `?startDate=` and `?startDate=null` both mean "not given" (SPEC: the dates are nullable). */
const given = (value: string | undefined): string | undefined => (value === undefined || value === '' || value === 'null' ? undefined : value);

export async function analyticsOf(
  em: EntityManager,
  automationId: number,
  query: { startDate?: string; endDate?: string },
): Promise<AutomationAnalytics> {
  const start = given(query.startDate);
  const end = given(query.endDate);
  const range = analyticsRange(
    start === undefined ? undefined : parseDateBound(start, 'start', 'startDate'),
    end === undefined ? undefined : parseDateBound(end, 'end', 'endDate'),
  );
  return automationAnalytics(em, automationId, range);
}
