/**
 * CSV exports. The cells PostgreSQL can write (csv-columns.ts) come out of the cursor as finished text, runs of
 * neighbouring cells as one column; Node writes the others (relations, users, files: labels from other tables)
 * through export-cells.ts and joins each line. A table of plain fields reads one text column per row, which is
 * several times cheaper than reading each value and converting it in Node.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { rowColumns } from '../ddl.js';
import type { SqlFragment } from '../query/fragment.js';
import type { RowView } from '../row-values.js';
import { ALIAS, listQuery } from '../rows-query.service.js';
import { toViews } from '../rows.service.js';
import type { FieldModel } from '../types.js';
import { csvColumn, dateZone } from './csv-columns.js';
import { cellConverter, type CellConverter } from './export-cells.js';
import { openCursor, pumpExport, type StartExport } from './export-cursor.js';
import { phaseTimer } from './export-timing.js';
import { labelLoaders, pageLabels } from './reference-labels.js';
import { csvField } from './sheet-format.js';

/** 1,000 rows per FETCH, two batches read ahead so the database works while Node writes: CSV rows are cheap to keep. */
const BATCH_ROWS = 1000;
const READ_AHEAD = 2;

/** A part of a line: a run of cells PostgreSQL wrote (a column of the query), or one field Node writes. */
type Part = { column: string } | { field: FieldModel; convert: CellConverter };

interface Batch {
  rows: Record<string, unknown>[];
  /** The rows in API form, for the fields Node writes (none when PostgreSQL writes every cell). */
  views: RowView[];
}

/** Whether PostgreSQL reads each zone as the tz database zone of that name (not as an abbreviation); cached. */
const zoneChecks = new Map<string, Promise<boolean>>();

async function sqlZones(em: EntityManager, fields: FieldModel[]): Promise<Set<string>> {
  const zones = new Set<string>();
  for (const zone of new Set(fields.filter((f) => f.type === 'date').map(dateZone))) {
    let check = zoneChecks.get(zone);
    if (!check) {
      // AT TIME ZONE takes 'CET' as a fixed-offset abbreviation where the tz database has summer time; UTC is both.
      const sql = `select (now() at time zone ?::text) is not null and (? = 'UTC' or not exists (select 1 from pg_timezone_abbrevs where lower(abbrev) = lower(?))) as ok`;
      check = em
        .getKnex()
        .raw(sql, [zone, zone, zone])
        .then((r: { rows: { ok: boolean }[] }) => r.rows[0]!.ok === true)
        .catch(() => false);
      zoneChecks.set(zone, check);
    }
    if (await check) zones.add(zone);
  }
  return zones;
}

/** The query's select list for `fields` (in export order) over the source's fields, and the parts of a line. */
function plan(fields: FieldModel[], readable: FieldModel[], zones: Set<string>): { select: SqlFragment; parts: Part[]; nodeFields: FieldModel[] } {
  const parts: Part[] = [];
  const runs: SqlFragment[][] = [];
  const nodeFields: FieldModel[] = [];
  let run: SqlFragment[] | undefined;
  for (const field of fields) {
    const source = readable.find((f) => f.id === field.id) ?? field;
    const cell = csvColumn(source, ALIAS, zones);
    if (cell) {
      if (!run) {
        runs.push((run = []));
        parts.push({ column: `_csv${runs.length - 1}` });
      }
      run.push(cell);
    } else {
      run = undefined;
      nodeFields.push(source);
      parts.push({ field: source, convert: cellConverter(field, 'csv') });
    }
  }
  const columns = runs.map((cells, i) => ({
    sql: `${cells.map((c) => `(${c.sql})`).join(" || ',' || ")} as "_csv${i}"`,
    bindings: cells.flatMap((c) => c.bindings),
  }));
  if (nodeFields.length) columns.push({ sql: rowColumns(nodeFields, `"${ALIAS}".`), bindings: [] });
  // A view without visible fields still writes one (empty) cell per row.
  if (!columns.length) columns.push({ sql: `'' as "_csv0"`, bindings: [] });
  return { select: { sql: columns.map((c) => c.sql).join(', '), bindings: columns.flatMap((c) => c.bindings) }, parts, nodeFields };
}

/** Starts a CSV export (see exportRows). */
export const startCsv: StartExport = async (em, ctx, query, fields, out, writers) => {
  const zones = await sqlZones(em, fields);
  let lines: ReturnType<typeof plan> | undefined;
  const { sql, bindings } = await listQuery(em, ctx, query, (readable) => (lines = plan(fields, readable, zones)).select);
  const { parts, nodeFields } = lines!;
  const loaders = await labelLoaders(em, ctx.table, nodeFields);
  const timer = phaseTimer('csv');
  const cursor = await openCursor<Batch>(em, sql, bindings, { batchRows: BATCH_ROWS, readAhead: READ_AHEAD, timer }, async (trx, rows) => ({
    rows,
    views: nodeFields.length ? await toViews(trx, nodeFields, rows) : [],
  }));
  const writer = writers.csv(
    out,
    fields.map((f) => f.name),
  );
  await pumpExport(
    cursor,
    out,
    BATCH_ROWS,
    {
      async write({ rows, views }) {
        const labels = nodeFields.length ? await pageLabels(views, nodeFields, loaders) : new Map();
        timer?.lap('cells');
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r]!;
          let line = '';
          for (let p = 0; p < parts.length; p++) {
            const part = parts[p]!;
            const cell = 'column' in part ? (row[part.column] as string) : csvField(part.convert(views[r]!.data[part.field.name], labels));
            line = p === 0 ? cell : `${line},${cell}`;
          }
          timer?.lap('cells');
          writer.line(line);
          timer?.lap('writer');
        }
        return rows.length;
      },
      finish: () => writer.finish(),
    },
    timer,
  );
};
