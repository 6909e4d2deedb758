/**
 * The writers of the two export formats (db/tables/export/sheet-format.ts): a CSV writer of finished lines (RFC 4180,
 * UTF-8 with a byte order mark so that spreadsheet programs read non-ASCII text right) and exceljs's streaming
 * workbook writer behind the SheetWriter interface.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import type { Cell } from '../../db/tables/export/export-cells.js';
import { csvField, type CsvWriter, type SheetWriter, type SheetWriters } from '../../db/tables/export/sheet-format.js';

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

/** exceljs's own XML text escaping and Excel date serial numbers, so that the rows below read as its would. */
const excelUtils = createRequire(import.meta.url)('exceljs/lib/utils/utils.js') as {
  xmlEncode(text: string): string;
  dateToExcel(date: Date, date1904?: boolean): number;
};

/** The style ids of exceljs's style manager (`workbook.styles`), by style object and cell type. */
interface StyleIds {
  addStyleModel(style: object, cellType: ExcelJS.ValueType): number;
}

/** Column letters, A … ZZ (a table has far fewer fields than 702). */
function columnLetter(index: number): string {
  const letter = (n: number) => String.fromCharCode(65 + n);
  return index < 26 ? letter(index) : letter(Math.floor(index / 26) - 1) + letter(index % 26);
}

/**
 * The `<row>` element of one row of cells, as exceljs 4.4.0's row and cell xforms render it with these options
 * (inline strings, no shared strings, one style object per column): the same elements, attributes and style ids,
 * made by string concatenation instead of a Row, its Cells and their models and xforms, which cost most of an
 * export's time. exceljs leaves out a row without a value, and a cell without a value or a style.
 */
function rowXml(number: number, cells: Cell[], letters: string[], styleObjects: object[], styles: StyleIds): string {
  let xml = '';
  let min = 0;
  let max = 0;
  let valued = false;
  for (let i = 0; i < cells.length; i++) {
    const value = cells[i];
    if (value === undefined) continue;
    let type: ExcelJS.ValueType;
    let text: string;
    if (value === null) type = ExcelJS.ValueType.Null;
    else if (typeof value === 'string') type = ExcelJS.ValueType.String;
    else if (typeof value === 'number') type = ExcelJS.ValueType.Number;
    else if (typeof value === 'boolean') type = ExcelJS.ValueType.Boolean;
    else if (value instanceof Date) type = ExcelJS.ValueType.Date;
    else throw new Error(`unexpected XLSX cell value ${typeof value}`);
    // exceljs counts cells that were given a value, null too, in the row's span.
    if (!min) min = i + 1;
    max = i + 1;
    const styleId = styles.addStyleModel(styleObjects[i]!, type);
    if (type === ExcelJS.ValueType.Null) {
      if (styleId) xml += `<c r="${letters[i]}${number}" s="${styleId}"/>`;
      continue;
    }
    valued = true;
    const head = styleId ? `<c r="${letters[i]}${number}" s="${styleId}"` : `<c r="${letters[i]}${number}"`;
    if (type === ExcelJS.ValueType.String) text = `${head} t="str"><v>${excelUtils.xmlEncode(value as string)}</v></c>`;
    else if (type === ExcelJS.ValueType.Boolean) text = `${head} t="b"><v>${value ? '1' : '0'}</v></c>`;
    else if (type === ExcelJS.ValueType.Date) text = `${head}><v>${excelUtils.dateToExcel(value as Date, false)}</v></c>`;
    else text = `${head}><v>${excelUtils.xmlEncode(String(value))}</v></c>`;
    xml += text;
  }
  if (!valued) return '';
  const spans = min > 0 ? ` spans="${min}:${max}"` : '';
  return `<row r="${number}"${spans} x14ac:dyDescent="0.25">${xml}</row>`;
}

export function xlsxWriter(out: Writable, sheetName: string, header: string[], formats: (string | undefined)[]): SheetWriter {
  // Level 1 deflate: several times faster than the default for a few percent more bytes.
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false, zip: { zlib: { level: 1 } } });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31).replace(/[\\/?*[\]:]/g, '_') || 'Sheet1');
  sheet.columns = header.map((name) => ({ header: name, width: Math.min(50, Math.max(10, name.length + 2)) }));
  // exceljs writes the sheet's head (columns, the opening of its data) and the header row; the rows after it are
  // written here into the same stream (rowXml).
  sheet.getRow(1).commit();
  const stream = (sheet as unknown as { stream: Writable }).stream;
  const styleIds = (workbook as unknown as { styles: StyleIds }).styles;
  // One style object per column, shared by its cells: exceljs caches style ids per object.
  const styles = formats.map((numFmt) => (numFmt ? { numFmt } : {}));
  const letters = header.map((_, i) => columnLetter(i));
  let number = 1;
  let pending = '';
  const flush = () => {
    if (pending) stream.write(pending);
    pending = '';
  };
  return {
    row(cells) {
      pending += rowXml(++number, cells, letters, styles, styleIds);
      if (pending.length >= 65_536) flush();
    },
    async ready() {
      flush();
      while (xlsxBacklog(sheet) > MAX_XLSX_BACKLOG && !out.destroyed) await sleep(2);
    },
    async finish() {
      flush();
      sheet.commit();
      await workbook.commit();
    },
  };
}

/** The writers exports are made with. */
export const sheetWriters: SheetWriters = { csv: csvWriter, xlsx: xlsxWriter };
