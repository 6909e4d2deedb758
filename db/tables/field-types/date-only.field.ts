import type { FieldTypeHandler } from '../types.js';
import { checkDateFormat, describe, fail, ok, pad, parseCalendarDate } from './common.js';

const isoDate = (year: number, month: number, day: number): string => `${pad(year, 4)}-${pad(month)}-${pad(day)}`;

/**
 * node-postgres returns `date` columns as `YYYY-MM-DD` strings under MikroORM's type parsers, and as a Date at
 * local midnight under pg's defaults; both come back as `YYYY-MM-DD`.
 */
function dateFromDb(raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date) {
    if (Number.isNaN(raw.getTime())) return null;
    const localMidnight = raw.getHours() === 0 && raw.getMinutes() === 0 && raw.getSeconds() === 0;
    const utcMidnight = raw.getUTCHours() === 0 && raw.getUTCMinutes() === 0 && raw.getUTCSeconds() === 0;
    return !localMidnight && utcMidnight
      ? isoDate(raw.getUTCFullYear(), raw.getUTCMonth() + 1, raw.getUTCDate())
      : isoDate(raw.getFullYear(), raw.getMonth() + 1, raw.getDate());
  }
  const text = String(raw);
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
}

export const dateOnlyField: FieldTypeHandler = {
  type: 'dateOnly',
  metadataKeys: ['format'],
  requiredMetadataKeys: [],
  defaultMetadata: { format: 'yyyy-MM-dd' },
  allowsDefault: true,
  checkMetadata: checkDateFormat,
  columnType: () => 'date',
  toDb(value, _field, ctx) {
    if (typeof value !== 'string') return fail(`expected a date as YYYY-MM-DD; got ${describe(value)}`);
    const keyword = value.trim().toUpperCase();
    if (keyword === 'TODAY' || keyword === 'NOW') {
      return ok(isoDate(ctx.now.getUTCFullYear(), ctx.now.getUTCMonth() + 1, ctx.now.getUTCDate()));
    }
    const date = parseCalendarDate(value);
    return date ? ok(isoDate(date.year, date.month, date.day)) : fail(`expected a real calendar date as YYYY-MM-DD; got ${describe(value)}`);
  },
  fromDb: dateFromDb,
};
