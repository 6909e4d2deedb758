import type { FieldTypeHandler, Issue } from '../types.js';
import { checkDateFormat, checkEnum, describe, fail, invalid, ok } from './common.js';
import { isValidTimeZone, parseDateTime, utcMillis, wallTimeToInstant, zoneOffset } from '../../../lib/time/zoned-time.js';

export { isValidTimeZone, parseDateTime, zoneOffset };

export const TIME_FORMATS = ['12h', '24h'] as const;

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
    if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.toISOString();
    return pgTimestampToIso(String(raw)) ?? null;
  },
  promotedKeys(metadata) {
    const keys: Record<string, unknown> = {};
    if (metadata.timezone !== undefined) keys.timezone = metadata.timezone;
    if (metadata.timeFormat !== undefined) keys.time_format = metadata.timeFormat;
    return keys;
  },
};

const PG_UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?\+00$/;

/**
 * The ISO form of PostgreSQL's text form of a timestamptz. Sessions run in UTC, so nearly every value is
 * `YYYY-MM-DD hh:mm:ss[.ffffff]+00` and is rewritten as text, far cheaper than parsing (exports read millions).
 */
export function pgTimestampToIso(text: string): string | undefined {
  const utc = PG_UTC_TIMESTAMP.exec(text);
  if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const date = parsePgTimestamp(text);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** Parses PostgreSQL's text form of timestamptz (`2024-01-15 17:00:00.123456+05:30`) or an ISO string. */
function parsePgTimestamp(text: string): Date | undefined {
  const m = /^(\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/.exec(
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
