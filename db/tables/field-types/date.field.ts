import type { FieldTypeHandler, Issue } from '../types.js';
import { checkDateFormat, checkEnum, describe, fail, invalid, isCalendarDate, ok } from './common.js';

export const TIME_FORMATS = ['12h', '24h'] as const;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

const zoneValidity = new Map<string, boolean>();

/** Whether `zone` is a time zone Intl knows (IANA names such as `America/New_York`, or `UTC`); memoized. */
export function isValidTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.trim() === '') return false;
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat(undefined, { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
    if (zoneValidity.size < 1000) zoneValidity.set(zone, valid);
  }
  return valid;
}

/** Milliseconds since the epoch of a UTC calendar time, valid for years 0–99 too (Date.UTC maps those to 19xx). */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, ms));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

/** Offset (wall time minus UTC, in ms) of `zone` at the instant `epochMs`. */
export function zoneOffset(epochMs: number, zone: string): number {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = utcMillis(year, Number(parts.month), Number(parts.day), Number(parts.hour) % 24, Number(parts.minute), Number(parts.second));
  return wall - (epochMs - (((epochMs % 1000) + 1000) % 1000));
}

/**
 * The instant at which the clocks of `zone` show the given wall time. Ambiguous times (when clocks go back) take
 * the earlier instant; skipped times (when clocks go forward) are moved forward by the gap, as Temporal's
 * "compatible" disambiguation does.
 */
export function wallTimeToInstant(wallAsUtc: number, zone: string): number {
  const before = zoneOffset(wallAsUtc - DAY_MS, zone);
  const after = zoneOffset(wallAsUtc + DAY_MS, zone);
  const candidates = [...new Set([before, after])]
    .map((offset) => wallAsUtc - offset)
    .filter((instant) => zoneOffset(instant, zone) === wallAsUtc - instant);
  return candidates.length > 0 ? Math.min(...candidates) : wallAsUtc - before;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses an ISO-8601 date-time; without an offset it is wall time in `zone`. */
export function parseDateTime(value: string, zone: string): Date | undefined {
  const m = ISO.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[4] === undefined && m[8] !== undefined) return undefined; // an offset needs a time
  const wall = utcMillis(year, month, day, hour, minute, second, ms);
  const offsetText = m[8];
  if (offsetText === undefined) return new Date(wallTimeToInstant(wall, zone));
  if (offsetText === 'Z' || offsetText === 'z') return new Date(wall);
  const digits = offsetText.replace(':', '');
  const [oh, om] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5) || 0)];
  if (oh > 23 || om > 59) return undefined;
  const sign = offsetText.startsWith('-') ? -1 : 1;
  return new Date(wall - sign * (oh * 60 + om) * 60_000);
}

/** The calendar date shown in `zone` at `now`. */
function todayIn(now: Date, zone: string): { year: number; month: number; day: number } {
  const wall = new Date(now.getTime() + zoneOffset(now.getTime(), zone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

function checkDateMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  if (metadata.timezone !== undefined && !isValidTimeZone(metadata.timezone)) {
    issues.push(invalid('timezone', `timezone must be an IANA time zone name such as "America/New_York"; got ${describe(metadata.timezone)}`));
  }
  return [...issues, ...checkDateFormat(metadata), ...checkEnum(metadata, 'timeFormat', TIME_FORMATS)];
}

export const dateField: FieldTypeHandler = {
  type: 'date',
  metadataKeys: ['timezone', 'format', 'timeFormat'],
  requiredMetadataKeys: ['timezone'],
  defaultMetadata: { timezone: 'UTC', format: 'yyyy-MM-dd', timeFormat: '24h' },
  allowsDefault: true,
  checkMetadata: checkDateMetadata,
  columnType: () => 'timestamptz',
  toDb(value, field, ctx) {
    const zone = isValidTimeZone(field.metadata.timezone) ? field.metadata.timezone : 'UTC';
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail('invalid date') : ok(new Date(value.getTime()));
    if (typeof value !== 'string') return fail(`expected an ISO-8601 date-time string; got ${describe(value)}`);
    const keyword = value.trim().toUpperCase();
    if (keyword === 'NOW') return ok(new Date(ctx.now.getTime()));
    if (keyword === 'TODAY') {
      const { year, month, day } = todayIn(ctx.now, zone);
      return ok(new Date(wallTimeToInstant(utcMillis(year, month, day), zone)));
    }
    const date = parseDateTime(value, zone);
    return date ? ok(date) : fail(`expected an ISO-8601 date-time such as "2024-01-31T09:30:00Z"; got ${describe(value)}`);
  },
  fromDb(raw) {
    if (raw === null || raw === undefined) return null;
    const date = raw instanceof Date ? raw : parsePgTimestamp(String(raw));
    return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
  },
  promotedKeys(metadata) {
    const keys: Record<string, unknown> = {};
    if (metadata.timezone !== undefined) keys.timezone = metadata.timezone;
    if (metadata.timeFormat !== undefined) keys.time_format = metadata.timeFormat;
    return keys;
  },
};

/** Parses PostgreSQL's text form of timestamptz (`2024-01-15 17:00:00.123456+05:30`) or an ISO string. */
function parsePgTimestamp(text: string): Date | undefined {
  const m =
    /^(\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/.exec(
      text.trim(),
    );
  if (!m) return undefined;
  const year = m[13] ? 1 - Number(m[1]) : Number(m[1]);
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const wall = utcMillis(year, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  if (m[9] === undefined) return new Date(wall);
  const offsetSeconds = (Number(m[10]) * 60 + Number(m[11] ?? 0)) * 60 + Number(m[12] ?? 0);
  return new Date(wall - (m[9] === '-' ? -1 : 1) * offsetSeconds * 1000);
}
