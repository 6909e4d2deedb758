/**
 * What an export writes through, as the export queries see it: the CSV quoting rule (which csv-columns.ts repeats
 * in SQL, so both must change together) and the writers of the two formats, which integrations/files/sheet-writers.ts
 * implements (a CSV writer of finished lines and exceljs's streaming workbook writer). Both write to `out`; the
 * caller waits for `out` to drain between pages.
 */
import type { Writable } from 'node:stream';
import type { Cell } from './export-cells.js';

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR first), unless it is just a number. */
export const FORMULA_LIKE = /^[=+\-@\t\r]/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** One CSV cell (RFC 4180 quoting). */
export function csvField(cell: Cell): string {
  if (typeof cell !== 'string') return cell === null ? '' : String(cell);
  // A cell a spreadsheet would evaluate (CSV injection) is written as text, with a leading apostrophe.
  const text = FORMULA_LIKE.test(cell) && !NUMBER.test(cell) ? `'${cell}` : cell;
  return text !== '' && NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A writer of typed cells (XLSX). */
export interface SheetWriter {
  row(cells: Cell[]): void;
  /** Resolves when the writer's own buffers (before `out`) are back under their bound. */
  ready(): Promise<void>;
  /** Ends the document and the output. */
  finish(): Promise<void>;
}

/** A writer of finished CSV lines. */
export interface CsvWriter {
  /** One line, its cells already written by csvField or csv-columns.ts, without its line break. */
  line(text: string): void;
  /** Ends the document and the output. */
  finish(): void;
}

/** The writers an export is made with. */
export interface SheetWriters {
  csv(out: Writable, header: string[]): CsvWriter;
  xlsx(out: Writable, sheetName: string, header: string[], formats: (string | undefined)[]): SheetWriter;
}
