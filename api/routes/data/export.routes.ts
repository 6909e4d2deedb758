/** CSV and XLSX exports of Objects and Tables (SPEC.md: export/csv, export/xlsx): streamed downloads. */
import { exportRows, type ExportQuery } from '../../../db/tables/export/rows-export.service.js';
import type { ExportFormat } from '../../../db/tables/export/export-cells.js';
import { sheetWriters } from '../../../integrations/files/sheet-writers.js';
import { tableContext } from '../../../db/tables/rows.service.js';
import { attachment } from '../../http-download.js';
import { Reply, type RouteRegistry } from '../../route-registry.js';
import { RowsExportSchema } from '../../schemas/data.schema.js';
import { nameParam, type DataSurface } from './surface.js';

/** `name`: the format in operation ids (`exportRecordsCsv`). */
const FORMATS: { format: ExportFormat; name: 'Csv' | 'Xlsx'; label: string; type: string }[] = [
  { format: 'csv', name: 'Csv', label: 'CSV (UTF-8, header row of field names)', type: 'text/csv' },
  {
    format: 'xlsx',
    name: 'Xlsx',
    label: 'XLSX (typed cells: numbers, dates in the field time zone, booleans)',
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  },
];

export function exportRoutes(api: RouteRegistry, s: DataSurface): void {
  for (const { format, name, label, type } of FORMATS) {
    api.add<ExportQuery>({
      method: 'post',
      operationId: `export${s.rows}${name}`,
      path: `${s.base}/:name/export/${format}`,
      scope: 'any',
      tag: s.tag,
      summary: `Rows matching the query (as rows/list, or a saved view with viewId) as ${label}; streamed as a download`,
      params: nameParam,
      body: RowsExportSchema,
      responses: { 200: { description: 'The file', contentTypes: [type] } },
      handler: async ({ auth, em, params, body }) => {
        const download = await exportRows(em, await tableContext(em, auth.account.id, s.kind, params.name), body, format, sheetWriters);
        return new Reply(200, download.stream, {
          'Content-Type': download.contentType,
          'Content-Disposition': attachment(download.fileName),
          'Cache-Control': 'no-store',
        });
      },
    });
  }
}
