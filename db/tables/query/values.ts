/**
 * Parsers of the `value` of filter conditions and of cursor values. Everything they accept converts in
 * PostgreSQL without error, so bad input is a 400 here and never a database error.
 */
import { zoneOffset } from '../../../lib/time/zoned-time.js';

/**
 * A parsed value, or why not: `message` reads after the value's path ("must be a string"); `at` extends the
 * path (`[2]` for an array item); `code` is the issue code when it is not `invalid_value`.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; at?: string; code?: string };

/** Longest text value of a condition. */
export const MAX_TEXT_LENGTH = 10_000;
/** Most items of an array value (`in`, `hasAny`, …). */
export const MAX_LIST_LENGTH = 500;

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function fail<T>(message: string, at?: string, code?: string): Parsed<T> {
  return { ok: false, message, ...(at !== undefined && { at }), ...(code !== undefined && { code }) };
}

export function parseText(value: unknown): Parsed<string> {
  if (typeof value !== 'string') return fail('must be a string');
  if (value.length > MAX_TEXT_LENGTH) return fail(`must be at most ${MAX_TEXT_LENGTH} characters`);
  if (value.includes('\u0000')) return fail('must not contain the NUL character');
  return ok(value);
}

export function parseBoolean(value: unknown): Parsed<boolean> {
  return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
}

const DECIMAL = /^[+-]?(\d{1,100}(\.\d{0,100})?|\.\d{1,100})$/;

/** A finite JSON number, or a decimal string (no exponent) for values beyond double precision. */
export function parseNumeric(value: unknown): Parsed<number | string> {
  if (typeof value === 'number') return Number.isFinite(value) ? ok(value) : fail('must be a finite number');
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return ok(value.trim());
  return fail('must be a number');
}

/** An integer that fits a PostgreSQL `integer`. */
export function parseInt4(value: unknown): Parsed<number> {
  if (typeof value !== 'number' || !Number.isInteger(value)) return fail('must be an integer');
  if (value < INT4_MIN || value > INT4_MAX) return fail('is out of range');
  return ok(value);
}

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** A row id: 24 hexadecimal characters (returned lower-case). */
export function parseRowId(value: unknown): Parsed<string> {
  if (typeof value !== 'string' || !OBJECT_ID.test(value)) return fail('must be a row id (24 hexadecimal characters)');
  return ok(value.toLowerCase());
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date `YYYY-MM-DD`. */
export function parseDateOnly(value: unknown): Parsed<string> {
  const match = typeof value === 'string' ? DATE_ONLY.exec(value) : null;
  if (!match || !validDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    return fail('must be a date YYYY-MM-DD');
  }
  return ok(value as string);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/;

function knownTimeZone(timeZone: unknown): string {
  if (typeof timeZone !== 'string' || timeZone === '') return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** The instant at which `date` begins in `timeZone`. */
function startOfDay(year: number, month: number, day: number, timeZone: string): Date {
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  let instant = wall.getTime() - zoneOffset(wall.getTime(), timeZone);
  instant = wall.getTime() - zoneOffset(instant, timeZone);
  return new Date(instant);
}

/** A bound of a date-time comparison: one instant, or a whole day `[from, to)`. */
export interface InstantBound {
  from: string;
  to: string;
  /** True for a bare date: `to` is the start of the next day and excluded. */
  wholeDay: boolean;
}

/**
 * An ISO 8601 date-time with `Z` or an offset (`2024-05-01T09:30:00Z`, `2024-05-01T11:30:00.250+02:00`): that
 * instant; or a bare date `YYYY-MM-DD`: that whole day in `timeZone` (IANA name; UTC when absent or unknown).
 * The strings returned are read by PostgreSQL as `timestamptz`.
 */
export function parseInstant(value: unknown, timeZone?: unknown): Parsed<InstantBound> {
  const message = 'must be an ISO 8601 date-time with offset (e.g. 2024-05-01T09:30:00Z) or a date YYYY-MM-DD';
  if (typeof value !== 'string') return fail(message);
  const date = DATE_ONLY.exec(value);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!validDate(year, month, day)) return fail(message);
    const zone = knownTimeZone(timeZone);
    const from = startOfDay(year, month, day, zone).toISOString();
    const to = startOfDay(year, month, day + 1, zone).toISOString();
    // Years 0 and beyond 9999 (toISOString writes them as 0000 / ±YYYYYY) are not read back by PostgreSQL.
    const readable = (iso: string) => /^\d{4}-/.test(iso) && !iso.startsWith('0000');
    if (!readable(from) || !readable(to)) return fail('is out of range');
    return ok({ from, to, wholeDay: true });
  }
  const m = DATE_TIME.exec(value);
  if (!m) return fail(message);
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetOk = m[8] === undefined || (Number(m[9]) <= 15 && Number(m[10]) <= 59);
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59 || !offsetOk) return fail(message);
  return ok({ from: value, to: value, wholeDay: false });
}

/** An array of at most MAX_LIST_LENGTH items, each parsed; duplicates removed. */
export function parseList<T>(value: unknown, item: (v: unknown) => Parsed<T>): Parsed<T[]> {
  if (!Array.isArray(value)) return fail('must be an array');
  if (value.length > MAX_LIST_LENGTH) return fail(`must have at most ${MAX_LIST_LENGTH} items`);
  const result: T[] = [];
  for (const [index, raw] of value.entries()) {
    const parsed = item(raw);
    if (!parsed.ok) return fail(parsed.message, `[${index}]${parsed.at ?? ''}`, parsed.code);
    if (!result.includes(parsed.value)) result.push(parsed.value);
  }
  return ok(result);
}

/** `[min, max]`, each parsed. */
export function parseRange<T>(value: unknown, item: (v: unknown) => Parsed<T>): Parsed<[T, T]> {
  if (!Array.isArray(value) || value.length !== 2) return fail('must be an array [min, max]');
  const min = item(value[0]);
  if (!min.ok) return fail(min.message, `[0]${min.at ?? ''}`, min.code);
  const max = item(value[1]);
  if (!max.ok) return fail(max.message, `[1]${max.at ?? ''}`, max.code);
  return ok([min.value, max.value]);
}
