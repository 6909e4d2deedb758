/**
 * From a SCHEDULED_TRIGGER node's data to a Temporal `ScheduleSpec`. Pure: no I/O, no clock.
 *
 * Temporal cron strings know no daily window, so a window (`startTime`–`endTime`, "HH:mm") is compiled into the
 * cron itself: the minute and hour fields are expanded into explicit lists, the fire times of each hour are kept
 * when they fall within [startTime, endTime), and hours that keep the same minutes share one cron expression. A
 * window whose end is before its start wraps past midnight (22:00–06:00 keeps 22:00–23:59 and 00:00–05:59 of each
 * selected day). The day-of-month, month and day-of-week fields are kept as written. Macros (@hourly, …) are
 * expanded to their 5-field form first. As in every Temporal cron, a day-of-month and a day-of-week that are both
 * restricted must both match (not either). The node's validation (nodes/scheduled-trigger.node.ts) has
 * already refused malformed input, so this module does not re-check it.
 *
 * Dates: `startDate`/`endDate` written as a calendar date ("2025-06-30") mean the start, and the end, of that day in
 * the node's time zone; a date-time without an offset is wall time in that zone; one with an offset or Z is that
 * instant. Temporal treats startAt/endAt as an inclusive interval, so the end of a day is its last millisecond.
 */
import type { ScheduleSpec } from '@temporalio/client';
import { parseDateTime } from '../time/zoned-time.js';

/** The fields of a SCHEDULED_TRIGGER node's data that decide when it fires. */
export interface ScheduledTriggerData {
  cronExpression: string;
  timezone: string;
  startTime?: string | null;
  endTime?: string | null;
  startDate?: string | null;
  endDate?: string | null;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const DAY_MINUTES = 24 * 60;

/**
 * The 5-field form of a cron expression as Temporal reads it: macros expanded, whitespace normalised, and "?" (the
 * Quartz spelling of "any day", which the node accepts and Temporal does not) written as "*".
 */
export function normalizeCron(expression: string): string {
  const text = expression.trim();
  return (
    MACROS[text.toLowerCase()] ??
    text
      .split(/\s+/)
      .map((field) => (field === '?' ? '*' : field))
      .join(' ')
  );
}

/** The values a numeric cron field (minute or hour) selects, ascending. */
export function expandField(field: string, min: number, max: number): number[] {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const [range = '*', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let [from, to] = [min, max];
    if (range !== '*' && range !== '?') {
      const [a, b] = range.split('-');
      from = Number(a);
      // "10/5" means from 10 to the end of the field, every 5; a single value without a step is only itself.
      to = b !== undefined ? Number(b) : stepText !== undefined ? max : from;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return [...values].sort((x, y) => x - y);
}

/** A cron list for ascending values: runs of three or more consecutive values become ranges ("0-5,22,23"). */
export function compactList(values: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${values[i]}-${values[j]}`);
    else parts.push(...values.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return parts.join(',');
}

function minuteOfDay(time: string): number {
  const [h, m] = time.split(':').map(Number);
  return h! * 60 + m!;
}

/**
 * Whether a minute of the day lies in the window [start, end). A missing start means midnight, a missing end the
 * end of the day; an end before the start wraps past midnight; equal times mean the whole day.
 */
function inWindow(minute: number, startTime: string | null, endTime: string | null): boolean {
  const start = startTime ? minuteOfDay(startTime) : 0;
  const end = endTime ? minuteOfDay(endTime) : DAY_MINUTES;
  if (start === end) return true;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/**
 * The cron expressions of `expression` limited to a daily window: one per group of hours that keep the same
 * minutes, ordered by their first hour. Empty when no fire time falls within the window.
 */
export function windowedCrons(expression: string, startTime: string | null, endTime: string | null): string[] {
  const [minuteField, hourField, ...days] = normalizeCron(expression).split(' ');
  const minutes = expandField(minuteField!, 0, 59);
  const groups = new Map<string, number[]>();
  for (const hour of expandField(hourField!, 0, 23)) {
    const kept = minutes.filter((m) => inWindow(hour * 60 + m, startTime, endTime));
    if (!kept.length) continue;
    const key = compactList(kept);
    groups.set(key, [...(groups.get(key) ?? []), hour]);
  }
  return [...groups].map(([minuteList, hours]) => [minuteList, compactList(hours), ...days].join(' '));
}

/** The instant a node's date stands for; `end` makes a calendar date mean the last millisecond of that day. */
export function dateBound(text: string, timezone: string, end: boolean): Date {
  const value = text.trim();
  const calendarDate = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (calendarDate && end) {
    const next = new Date(Date.UTC(Number(calendarDate[1]), Number(calendarDate[2]) - 1, Number(calendarDate[3]) + 1));
    const nextDay = parseDateTime(next.toISOString().slice(0, 10), timezone);
    if (nextDay) return new Date(nextDay.getTime() - 1);
  }
  // Other formats that the node's validation accepts (Date.parse) are taken as they parse.
  return parseDateTime(value, timezone) ?? new Date(value);
}

/** The Temporal schedule spec of a SCHEDULED_TRIGGER node. */
export function scheduleSpecOf(data: ScheduledTriggerData): ScheduleSpec {
  const startTime = data.startTime ?? null;
  const endTime = data.endTime ?? null;
  const cronExpressions = startTime || endTime ? windowedCrons(data.cronExpression, startTime, endTime) : [normalizeCron(data.cronExpression)];
  const spec: ScheduleSpec = { cronExpressions, timezone: data.timezone };
  if (data.startDate) spec.startAt = dateBound(data.startDate, data.timezone, false);
  if (data.endDate) spec.endAt = dateBound(data.endDate, data.timezone, true);
  return spec;
}
