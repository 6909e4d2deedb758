/**
 * One row of the API's read form → the cells of an export. CSV cells are text; XLSX cells keep their type:
 * numbers, booleans, and dates as Excel date-times showing the wall time of the field's time zone (Excel dates
 * carry no zone). Pure, apart from a cache of zone offsets.
 */
import { zoneOffset } from '../../../lib/time/zoned-time.js';
import type { FieldModel } from '../types.js';

export type ExportFormat = 'csv' | 'xlsx';
export type Cell = string | number | boolean | Date | null;

/** Referenced ids → labels of one page, per field id (see reference-labels.ts). */
export type PageLabels = Map<number, Map<string, string>>;

/** Excel number formats of the date columns. */
export const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
export const DATE_FORMAT = 'yyyy-mm-dd';

const QUARTER_HOUR = 15 * 60 * 1000;
const offsets = new Map<string, Map<number, number>>();

/** Offsets only change on quarter hours (every zone's transitions do), so one lookup serves each quarter hour. */
function cachedOffset(ms: number, zone: string): number {
  let byQuarter = offsets.get(zone);
  if (!byQuarter) offsets.set(zone, (byQuarter = new Map()));
  const quarter = Math.floor(ms / QUARTER_HOUR);
  let offset = byQuarter.get(quarter);
  if (offset === undefined) {
    if (byQuarter.size > 100_000) byQuarter.clear();
    offset = zoneOffset(ms, zone);
    byQuarter.set(quarter, offset);
  }
  return offset;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

const suffixes = new Map<number, string>();

/** `+hh:mm` / `-hh:mm` of an offset, built once per offset. */
function offsetSuffix(offsetMs: number): string {
  let suffix = suffixes.get(offsetMs);
  if (suffix === undefined) {
    const minutes = Math.round(offsetMs / 60000);
    suffix = `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
    suffixes.set(offsetMs, suffix);
  }
  return suffix;
}

/** ISO 8601 with the zone's offset, e.g. `2024-01-15T09:30:00-05:00` (milliseconds only when not zero). */
function zonedIso(wall: Date, offsetMs: number): string {
  const text = wall.toISOString();
  return (wall.getUTCMilliseconds() ? text.slice(0, 23) : text.slice(0, 19)) + offsetSuffix(offsetMs);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function dateCell(value: unknown, zone: string, format: ExportFormat): Cell {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) return format === 'csv' ? text(value) : (value as Cell);
  const offset = cachedOffset(ms, zone);
  const wall = new Date(ms + offset);
  return format === 'xlsx' ? wall : zonedIso(wall, offset);
}

function plainCell(value: unknown, format: ExportFormat): Cell {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return format === 'csv' ? '' : null;
  if (format === 'xlsx' && (typeof value === 'number' || typeof value === 'boolean')) return value;
  return text(value);
}

/** Converts the value of one field; `labels` maps referenced ids to what the export shows. */
export type CellConverter = (value: unknown, labels: PageLabels) => Cell;

export function cellConverter(field: FieldModel, format: ExportFormat): CellConverter {
  if (field.type === 'date') {
    const zone = typeof field.metadata.timezone === 'string' ? field.metadata.timezone : 'UTC';
    return (value) => (value === null || value === undefined ? plainCell(value, format) : dateCell(value, zone, format));
  }
  if (field.type === 'dateOnly') {
    return (value) =>
      format === 'xlsx' && typeof value === 'string' && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))
        ? new Date(`${value}T00:00:00Z`)
        : plainCell(value, format);
  }
  if (field.type === 'relation' || field.type === 'entityRelation' || field.type === 'file') {
    return (value, labels) => {
      const known = labels.get(field.id);
      if (!known) return plainCell(value, format);
      const ids = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
      return plainCell(ids.map((id) => known.get(String(id)) ?? String(id)).join(', '), format);
    };
  }
  return (value) => plainCell(value, format);
}

/** Excel number format of a field's column, for the typed date cells. */
export function columnFormat(field: FieldModel): string | undefined {
  if (field.type === 'date') return DATE_TIME_FORMAT;
  if (field.type === 'dateOnly') return DATE_FORMAT;
  return undefined;
}
