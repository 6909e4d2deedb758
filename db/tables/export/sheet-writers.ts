/**
 * The two export formats behind one interface: a CSV writer (RFC 4180, UTF-8 with a byte order mark so that
 * spreadsheet programs read non-ASCII text right) and exceljs's streaming workbook writer. Both write to `out`;
 * the caller waits for `out` to drain between pages.
 */
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Cell } from './export-cells.js';

export interface SheetWriter {
  row(cells: Cell[]): void;
  /** Ends the document and the output. */
  finish(): Promise<void>;
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

function csvField(cell: Cell): string {
  const value = cell === null ? '' : String(cell);
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvWriter(out: Writable, header: string[]): SheetWriter {
  // Rows are gathered into chunks of about 64 KiB: one write per row would cost more than the row itself.
  let chunk = `\uFEFF${header.map(csvField).join(',')}\r\n`;
  const flush = (): void => {
    out.write(chunk);
    chunk = '';
  };
  return {
    row(cells) {
      chunk += `${cells.map(csvField).join(',')}\r\n`;
      if (chunk.length >= 65_536) flush();
    },
    async finish() {
      if (chunk) flush();
      out.end();
    },
  };
}

export function xlsxWriter(out: Writable, sheetName: string, header: string[], formats: (string | undefined)[]): SheetWriter {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31).replace(/[\\/?*[\]:]/g, '_') || 'Sheet1');
  sheet.columns = header.map((name, i) => ({ header: name, width: Math.min(50, Math.max(10, name.length + 2)), ...(formats[i] ? { style: { numFmt: formats[i] } } : {}) }));
  return {
    row(cells) {
      sheet.addRow(cells).commit();
    },
    async finish() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
