/**
 * CSV and XLSX exports of the rows matching a query (filter, sort, search, record type, optionally a saved view's
 * filter, sort and visible fields). One database cursor runs rows/list's query (so each row has exactly its read
 * form, formulas included) and rows are written batch by batch as they arrive: the client gets the first bytes
 * before the last row is read, and memory stays flat for any number of rows, since the next batch waits while
 * the client has not taken the previous one. CSV: csv-export.ts; XLSX: below.
 */
import { PassThrough } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../../lib/errors.js';
import type { RowView } from '../row-values.js';
import { listQuery, type RowQuery } from '../rows-query.service.js';
import { toViews, type TableContext } from '../rows.service.js';
import type { FieldModel } from '../types.js';
import { findView } from '../views.service.js';
import { startCsv } from './csv-export.js';
import { cellConverter, columnFormat, type Cell, type ExportFormat } from './export-cells.js';
import { openCursor, pumpExport, type StartExport } from './export-cursor.js';
import { phaseTimer } from './export-timing.js';
import { labelLoaders, pageLabels } from './reference-labels.js';
import type { SheetWriters } from './sheet-format.js';

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

/**
 * XLSX rows are read 100 per FETCH, none ahead. Batches are small on purpose: a row read ahead stays alive until it
 * is written, and rows that outlive young-generation collections are promoted to the old one, where an export's
 * worth of garbage piles up before a full collection. Measured again with the faster row writer (docs/benchmarks.md,
 * Exports): 500 rows with one batch ahead peaked at 180 MB over idle and was slower; 100 with one ahead gained nothing.
 */
const XLSX_BATCH_ROWS = 100;

/** The query with the view's parts merged in, and the fields to export in order. */
async function resolveQuery(em: EntityManager, ctx: TableContext, q: ExportQuery): Promise<{ query: RowQuery; fields: FieldModel[] }> {
  const { viewId, ...query } = q;
  if (viewId === undefined) return { query, fields: ctx.fields };
  const view = await findView(em, ctx.table, viewId).catch(() => {
    throw new BadRequestError(`View ${viewId} not found`, [
      { code: 'not_found', path: 'viewId', message: `no view ${viewId} in "${ctx.table.name}"` },
    ]);
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

/** Starts an XLSX export of `fields` into `out`: typed cells through exceljs's streaming workbook writer. */
const startXlsx: StartExport = async (em, ctx, query, fields, out, writers) => {
  const { sql, bindings, fields: readable } = await listQuery(em, ctx, query);
  const loaders = await labelLoaders(em, ctx.table, fields);
  const timer = phaseTimer('xlsx');
  const cursor = await openCursor<RowView[]>(em, sql, bindings, { batchRows: XLSX_BATCH_ROWS, readAhead: 0, timer }, (trx, rows) =>
    toViews(trx, readable, rows),
  );
  const writer = writers.xlsx(
    out,
    ctx.table.displayName,
    fields.map((f) => f.name),
    fields.map(columnFormat),
  );
  const converters = fields.map((f) => cellConverter(f, 'xlsx'));
  // One array for every row: the writer takes the values at once and keeps nothing.
  const cells: Cell[] = new Array<Cell>(fields.length);
  await pumpExport(
    cursor,
    out,
    XLSX_BATCH_ROWS,
    {
      async write(rows) {
        const labels = await pageLabels(rows, fields, loaders);
        timer?.lap('cells');
        for (const row of rows) {
          for (let i = 0; i < fields.length; i++) cells[i] = converters[i]!(row.data[fields[i]!.name], labels);
          timer?.lap('cells');
          writer.row(cells);
          timer?.lap('writer');
        }
        await writer.ready();
        timer?.lap('drain');
        return rows.length;
      },
      finish: () => writer.finish(),
    },
    timer,
  );
};

/**
 * Starts an export. The query is compiled and the first batch read before answering, so a bad query is a 400
 * and not a broken download; the rest streams.
 */
export async function exportRows(
  em: EntityManager,
  ctx: TableContext,
  q: ExportQuery,
  format: ExportFormat,
  writers: SheetWriters,
): Promise<ExportDownload> {
  const { query, fields } = await resolveQuery(em, ctx, q);
  const out = new PassThrough();
  await (format === 'csv' ? startCsv : startXlsx)(em, ctx, query, fields, out, writers);
  const day = new Date().toISOString().slice(0, 10);
  return { fileName: `${ctx.table.name}-${day}.${format}`, contentType: CONTENT_TYPES[format], stream: out };
}
