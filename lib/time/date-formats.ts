/**
 * What a date or time given to the API must be, as predicates the one ajv instance registers as string formats
 * (api/validation.ts). Real calendar values only: no month 13, no 30 February, no hour 24 or minute 60, and no leap
 * second, which a JavaScript Date cannot hold. Pure, so node checks and services can share them.
 */
import { isCalendarDate, parseDateTime } from './zoned-time.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:?\d{2})$/;
const DATE_OR_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** `YYYY-MM-DD` naming a day that exists. */
export function isIsoDate(value: string): boolean {
  const m = DATE.exec(value);
  return !!m && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** An RFC 3339 date-time with seconds and an offset (`2026-01-31T09:30:00Z`) naming an instant that exists. */
export function isIsoDateTime(value: string): boolean {
  return RFC3339.test(value) && parseDateTime(value, 'UTC') !== undefined;
}

/** `YYYY-MM-DD`, or an ISO date-time whose seconds and offset are optional (UTC or the field's zone when absent). */
export function isDateOrDateTime(value: string): boolean {
  return DATE_OR_DATE_TIME.test(value) && parseDateTime(value, 'UTC') !== undefined;
}

/** A string format of the API's schemas: its predicate and the issue message of a value that fails it. */
export interface DateFormat {
  test: (value: string) => boolean;
  message: string;
}

/** Formats by name: `date` and `date-time` replace ajv-formats' (which take leap seconds), `date-bound` is ours. */
export const DATE_FORMATS: Record<'date' | 'date-time' | 'date-bound', DateFormat> = {
  date: { test: isIsoDate, message: 'must be a real calendar date YYYY-MM-DD' },
  'date-time': { test: isIsoDateTime, message: 'must be a real ISO 8601 date-time with offset, e.g. 2026-01-31T09:30:00Z' },
  'date-bound': {
    test: isDateOrDateTime,
    message: 'must be a real calendar date YYYY-MM-DD or an ISO 8601 date-time, e.g. 2026-01-31T09:30:00Z',
  },
};
