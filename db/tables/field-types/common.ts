/** Small checks shared by the field-type handlers. Pure; no I/O. */
import type { Issue, ToDbResult } from '../types.js';
import { isCalendarDate } from '../../../lib/time/zoned-time.js';

export { isCalendarDate };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export const ok = (value: unknown): ToDbResult => ({ ok: true, value });
export const fail = (message: string): ToDbResult => ({ ok: false, message });

export function invalid(key: string, message: string): Issue {
  return { code: 'invalid', path: `metadata.${key}`, message };
}

export const quoteList = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

/** Issue when `metadata[key]` is present and not one of `allowed`. */
export function checkEnum(metadata: Record<string, unknown>, key: string, allowed: readonly string[]): Issue[] {
  const value = metadata[key];
  if (value === undefined || (typeof value === 'string' && allowed.includes(value))) return [];
  return [invalid(key, `${key} must be one of ${quoteList(allowed)}; got ${JSON.stringify(value)}`)];
}

export function checkBoolean(metadata: Record<string, unknown>, key: string): Issue[] {
  const value = metadata[key];
  return value === undefined || typeof value === 'boolean' ? [] : [invalid(key, `${key} must be a boolean`)];
}

export function checkPositiveInteger(metadata: Record<string, unknown>, key: string): Issue[] {
  const value = metadata[key];
  return value === undefined || (Number.isSafeInteger(value) && (value as number) > 0) ? [] : [invalid(key, `${key} must be a positive integer`)];
}

export function checkObject(metadata: Record<string, unknown>, key: string): Issue[] {
  const value = metadata[key];
  return value === undefined || isPlainObject(value) ? [] : [invalid(key, `${key} must be an object`)];
}

/** Accepts a single item or an array of items; returns the deduplicated array, or an error message. */
export function collect<T>(
  value: unknown,
  convert: (item: unknown) => T | undefined,
  what: string,
): { ok: true; items: T[] } | { ok: false; message: string } {
  const list = Array.isArray(value) ? value : [value];
  const items: T[] = [];
  for (const item of list) {
    const converted = convert(item);
    if (converted === undefined) return { ok: false, message: `expected ${what}; got ${describe(item)}` };
    if (!items.includes(converted)) items.push(converted);
  }
  return { ok: true, items };
}

/** Short description of a rejected value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Display patterns accepted by date and dateOnly fields. */
export const DATE_FORMATS = ['MM/dd/yyyy', 'dd/MM/yyyy', 'yyyy-MM-dd', 'MMM d, yyyy', 'd MMM yyyy'] as const;
const LEGACY_DATE_FORMATS = ['datetime', 'date', 'time'];

export function checkDateFormat(metadata: Record<string, unknown>): Issue[] {
  const value = metadata.format;
  if (value === undefined || (typeof value === 'string' && (DATE_FORMATS as readonly string[]).includes(value))) {
    return [];
  }
  const legacy = typeof value === 'string' && LEGACY_DATE_FORMATS.includes(value);
  const prefix = legacy ? `format "${value}" is a legacy value and no longer valid` : `invalid format ${describe(value)}`;
  return [invalid('format', `${prefix}; format must be one of ${quoteList(DATE_FORMATS)}`)];
}

/** `YYYY-MM-DD` components when the string is a real calendar date. */
export function parseCalendarDate(value: string): { year: number; month: number; day: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return isCalendarDate(year, month, day) ? { year, month, day } : undefined;
}

export const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
