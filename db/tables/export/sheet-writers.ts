/**
 * The two export formats: a CSV writer of finished lines (RFC 4180, UTF-8 with a byte order mark so that
 * spreadsheet programs read non-ASCII text right; csvField is the quoting rule, which csv-columns.ts repeats in SQL)
 * and exceljs's streaming workbook writer behind the SheetWriter interface. Both write to `out`; the caller waits
 * for `out` to drain between pages.
 */
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import type { Cell } from './export-cells.js';

export interface SheetWriter {
  row(cells: Cell[]): void;
  /** Resolves when the writer's own buffers (before `out`) are back under their bound. */
  ready(): Promise<void>;
  /** Ends the document and the output. */
  finish(): Promise<void>;
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR first), unless it is just a number. */
export const FORMULA_LIKE = /^[=+\-@\t\r]/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function csvField(cell: Cell): string {
  if (typeof cell !== 'string') return cell === null ? '' : String(cell);
  // A cell a spreadsheet would evaluate (CSV injection) is written as text, with a leading apostrophe.
  const text = FORMULA_LIKE.test(cell) && !NUMBER.test(cell) ? `'${cell}` : cell;
  return text !== '' && NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface CsvWriter {
  /** One line, its cells already written by csvField or csv-columns.ts, without its line break. */
  line(text: string): void;
  /** Ends the document and the output. */
  finish(): void;
}

export function csvWriter(out: Writable, header: string[]): CsvWriter {
  // Lines are gathered into chunks of about 256 KiB: one write per line would cost more than the line itself.
  let chunk = `\uFEFF${header.map(csvField).join(',')}\r\n`;
  return {
    line(text) {
      chunk += `${text}\r\n`;
      if (chunk.length >= 262_144) {
        out.write(chunk);
        chunk = '';
      }
    },
    finish() {
      if (chunk) out.write(chunk);
      out.end();
    },
  };
}

/** Bytes of sheet XML a workbook may hold before compression catches up. */
const MAX_XLSX_BACKLOG = 4 * 2 ** 20;

/**
 * exceljs (4.4.0, pinned) writes a sheet's XML into the zip archiver's input pass-through without waiting for it,
 * so rows written faster than they are deflated pile up there. Its fill level is the backlog to wait on; 0 if
 * another exceljs version is shaped differently (then only the output stream's backpressure applies).
 */
function xlsxBacklog(sheet: ExcelJS.Worksheet): number {
  // A readable-stream 2 pass-through: no writableLength getter, the state object has it.
  const input = (sheet as unknown as { stream?: { pipes?: { _writableState?: { length?: number } }[] } }).stream?.pipes?.[0];
  return input?._writableState?.length ?? 0;
}

export function xlsxWriter(out: Writable, sheetName: string, header: string[], formats: (string | undefined)[]): SheetWriter {
  // Level 1 deflate: several times faster than the default for a few percent more bytes.
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false, zip: { zlib: { level: 1 } } });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31).replace(/[\\/?*[\]:]/g, '_') || 'Sheet1');
  sheet.columns = header.map((name) => ({ header: name, width: Math.min(50, Math.max(10, name.length + 2)) }));
  // One style object per column, shared by its cells: exceljs caches style ids per object, and would otherwise
  // work a style out for every cell.
  const styles = formats.map((numFmt) => (numFmt ? { numFmt } : {}));
  return {
    row(cells) {
      const row = sheet.addRow(cells);
      for (let i = 0; i < styles.length; i++) row.getCell(i + 1).style = styles[i]!;
      row.commit();
    },
    async ready() {
      while (xlsxBacklog(sheet) > MAX_XLSX_BACKLOG && !out.destroyed) await sleep(2);
    },
    async finish() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
