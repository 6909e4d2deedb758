/**
 * Wall time in IANA time zones, pure (Intl only): zone validity, offsets, wall time to instant, ISO-8601 parsing.
 * Shared by date fields, node validation and schedules.
 */
const DAY_MS = 86_400_000;

export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

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
export function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
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

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

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
