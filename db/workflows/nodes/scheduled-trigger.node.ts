import { isValidTimeZone } from '../../../lib/time/zoned-time.js';
import { cronProblem } from './cron.js';
import { invalid, missing, type NodeCheck } from './types.js';

const FREQUENCIES = ['INTERVALS', 'DAILY', 'WEEKLY', 'MONTHLY'];
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** SCHEDULED_TRIGGER: a cron expression in an IANA time zone, with an optional daily window and date range. */
export const checkScheduledTrigger: NodeCheck = (node) => {
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
    if (d[key] != null && (typeof d[key] !== 'string' || Number.isNaN(Date.parse(d[key] as string)))) issues.push(invalid(key, 'must be a date'));
  }
  if (d.frequency != null && !FREQUENCIES.includes(d.frequency as string)) issues.push(invalid('frequency', `must be one of ${FREQUENCIES.join(', ')}`));
  return issues;
};
