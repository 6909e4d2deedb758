/**
 * SCHEDULED_TRIGGER: a cron expression in an IANA time zone, with an optional daily window and date range. While
 * its workflow is ACTIVE it is a Temporal Schedule (lib/schedules); its output is `{ scheduleId, nodeId }`.
 */
import { isDateOrDateTime } from '../lib/time/date-formats.js';
import { isValidTimeZone } from '../lib/time/zoned-time.js';
import { cronProblem } from './checks/cron.js';
import { invalid, missing, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, type NodeModule } from './node-module.js';

const FREQUENCIES = ['INTERVALS', 'DAILY', 'WEEKLY', 'MONTHLY'];
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const checkScheduledTrigger: NodeCheck = (node) => {
  const d = node.data;
  const issues = [];
  const cron = cronProblem(d.cronExpression);
  if (cron) issues.push(d.cronExpression === undefined ? missing('cronExpression') : invalid('cronExpression', cron));
  if (d.timezone === undefined) issues.push(missing('timezone'));
  else if (!isValidTimeZone(d.timezone)) issues.push(invalid('timezone', 'must be an IANA time zone such as "Europe/Paris"'));
  for (const key of ['startTime', 'endTime'] as const) {
    if (!(key in d)) issues.push(missing(key, 'is required (send null when there is no daily window)'));
    else if (d[key] !== null && !(typeof d[key] === 'string' && TIME.test(d[key] as string))) issues.push(invalid(key, 'must be HH:mm or null'));
  }
  for (const key of ['startDate', 'endDate'] as const) {
    if (d[key] != null && !(typeof d[key] === 'string' && isDateOrDateTime(d[key] as string)))
      issues.push(invalid(key, 'must be a real calendar date YYYY-MM-DD or an ISO 8601 date-time'));
  }
  if (d.frequency != null && !FREQUENCIES.includes(d.frequency as string))
    issues.push(invalid('frequency', `must be one of ${FREQUENCIES.join(', ')}`));
  return issues;
};

const nullableText = (description: string) => ({ type: ['string', 'null'], description });
const nullableDate = (description: string) => ({ type: ['string', 'null'], maxLength: 40, format: 'date-bound', description });

export const scheduledTriggerNode: NodeModule = {
  type: 'SCHEDULED_TRIGGER',
  scopes: ['automation'],
  summary: 'Cron-style entry point, run on a Temporal Schedule while the workflow is ACTIVE',
  data: {
    required: ['cronExpression', 'timezone', 'startTime', 'endTime'],
    properties: {
      cronExpression: { type: 'string', description: '5-field cron expression, e.g. "0 9 * * MON-FRI"' },
      timezone: { type: 'string', description: 'IANA time zone, e.g. "Europe/Paris"' },
      startTime: nullableText('HH:mm start of the daily window; null for none'),
      endTime: nullableText('HH:mm end of the daily window; null for none'),
      startDate: nullableDate('First day: YYYY-MM-DD or an ISO date-time (wall time in `timezone` without an offset)'),
      endDate: nullableDate('Last day: YYYY-MM-DD (the whole day) or an ISO date-time'),
      frequency: { enum: [...FREQUENCIES, null], description: 'A label only; the cron expression schedules runs' },
    },
  },
  handles: DEFAULT_HANDLES,
  entry: true,
  checks: [checkScheduledTrigger],
};
