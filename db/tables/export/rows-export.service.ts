/**
 * CSV and XLSX exports of the rows matching a query (filter, sort, search, record type, optionally a saved view's
 * filter, sort and visible fields). Rows are read page by page with the keyset pagination of rows/list, so each
 * row has exactly its read form (formulas included), and written as they arrive: the client gets the first bytes
 * before the last row is read, and memory stays flat for any number of rows, since a page waits while the
 * client has not taken the previous one.
 */
import { PassThrough, type Writable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../../lib/errors.js';
import type { RowView } from '../row-values.js';
import { listRows, type RowQuery } from '../rows-query.service.js';
import type { TableContext } from '../rows.service.js';
import type { FieldModel } from '../types.js';
import { findView } from '../views.service.js';
import { cellConverter, columnFormat, type ExportFormat, type PageLabels } from './export-cells.js';
import { labelLoaders, type LabelLoader } from './reference-labels.js';
import { csvWriter, xlsxWriter, type SheetWriter } from './sheet-writers.js';

export interface ExportQuery extends Omit<RowQuery, 'limit' | 'cursor'> {
  /** A saved view: its filter applies too (and), its sort and record type unless given, its visible fields in order. */
  viewId?: number;
}

export interface ExportDownload {
  fileName: string;
  contentType: string;
  stream: PassThrough;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Rows per read: large enough that per-query costs vanish, small enough to keep a page's memory modest. */
const PAGE_ROWS = 2000;

/** The query with the view's parts merged in, and the fields to export in order. */
async function resolveQuery(em: EntityManager, ctx: TableContext, q: ExportQuery): Promise<{ query: RowQuery; fields: FieldModel[] }> {
  const { viewId, ...query } = q;
  if (viewId === undefined) return { query, fields: ctx.fields };
  const view = await findView(em, ctx.table, viewId).catch(() => {
    throw new BadRequestError(`View ${viewId} not found`, [{ code: 'not_found', path: 'viewId', message: `no view ${viewId} in "${ctx.table.name}"` }]);
  });
  const filters = [view.filter, query.filter].filter((f) => f !== undefined && f !== null);
  const visible = view.visibleFieldIds.map((id) => ctx.fields.find((f) => f.id === id)).filter((f): f is FieldModel => f !== undefined);
  return {
    query: {
      ...query,
      filter: filters.length > 1 ? { and: filters } : filters[0],
      sort: query.sort ?? (view.sort.length ? view.sort : undefined),
      recordTypeId: query.recordTypeId ?? view.recordType?.id,
    },
    fields: visible.length ? visible : ctx.fields,
  };
}

/** Labels of the ids the page's rows reference, per field. */
async function pageLabels(rows: RowView[], fields: FieldModel[], loaders: Map<number, LabelLoader>): Promise<PageLabels> {
  const labels: PageLabels = new Map();
  for (const field of fields) {
    const load = loaders.get(field.id);
    if (!load) continue;
    const ids = new Set<string>();
    for (const row of rows) {
      const value = row.data[field.name];
      for (const id of Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]) ids.add(String(id));
    }
    if (ids.size) labels.set(field.id, await load([...ids]));
  }
  return labels;
}

/** Resolves once `out` can take more, or is gone. */
function drained(out: Writable): Promise<void> {
  if (!out.writableNeedDrain || out.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done).off('close', done);
      resolve();
    };
    out.once('drain', done).once('close', done);
  });
}

/**
 * Starts an export. The first page is read before answering, so a bad query is a 400 and not a broken download;
 * the rest streams. A failure later destroys the stream (the client sees a truncated transfer, never a
 * truncated file that looks complete).
 */
export async function exportRows(em: EntityManager, ctx: TableContext, q: ExportQuery, format: ExportFormat): Promise<ExportDownload> {
  const { query, fields } = await resolveQuery(em, ctx, q);
  const read = (cursor?: string) => listRows(em, ctx, { ...query, limit: PAGE_ROWS, cursor });
  const first = await read();
  const loaders = await labelLoaders(em, ctx.table, fields);
  const out = new PassThrough();
  const header = fields.map((f) => f.name);
  const writer = format === 'csv' ? csvWriter(out, header) : xlsxWriter(out, ctx.table.displayName, header, fields.map(columnFormat));
  const converters = fields.map((f) => cellConverter(f, format));

  const pump = async (writer: SheetWriter): Promise<void> => {
    let page = first;
    for (;;) {
      // The next page is read while this one is written.
      const next = page.nextCursor ? read(page.nextCursor) : undefined;
      next?.catch(() => undefined);
      const labels = await pageLabels(page.agentry, fields, loaders);
      for (const row of page.agentry) writer.row(converters.map((convert, i) => convert(row.data[fields[i]!.name], labels)));
      await drained(out);
      if (out.destroyed) return;
      if (!next) break;
      page = await next;
    }
    await writer.finish();
  };
  pump(writer).catch((error: Error) => out.destroy(error));
  const day = new Date().toISOString().slice(0, 10);
  return { fileName: `${ctx.table.name}-${day}.${format}`, contentType: CONTENT_TYPES[format], stream: out };
}
