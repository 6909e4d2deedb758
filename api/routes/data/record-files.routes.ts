/** Files of Object records (SPEC.md, Objects): multipart upload, metadata, download with ranges, delete. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FileStore } from '../../../db/tables/files/file-store.js';
import { deleteFile, fileView, findFile, listFiles, readFile, uploadFiles } from '../../../db/tables/files/record-files.service.js';
import { attachment, parseRange } from '../../http-download.js';
import { filesOf } from '../../multipart-upload.js';
import { Reply, type RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import {
  FileUploadForm,
  FileUploadQuerySchema,
  RecordFileListSchema,
  RecordFilePageSchema,
  RecordFileSchema,
} from '../../schemas/record-files.schema.js';
import { OBJECTS, findObject, paramsWith, recordParams, type PageQuery, type RecordParams } from './surface.js';

type FileParams = { name: string; id: number };

export function recordFileRoutes(api: RouteRegistry, store: FileStore): void {
  const { base, tag } = OBJECTS;
  const file = async (em: EntityManager, accountId: number, p: FileParams) => findFile(em, await findObject(em, accountId, p.name), p.id);

  api.add<unknown, PageQuery, RecordParams>({
    method: 'get',
    operationId: 'listRecordFiles',
    path: `${base}/:name/rows/:rowId/files`,
    scope: 'any',
    tag,
    summary: 'Files of a record, oldest first',
    params: recordParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [RecordFile], nextCursor }', schema: RecordFilePageSchema } },
    handler: async ({ auth, em, params, query }) => listFiles(em, await findObject(em, auth.account.id, params.name), params.rowId, query),
  });
  api.add<unknown, { field?: string }, RecordParams>({
    method: 'post',
    operationId: 'uploadRecordFiles',
    path: `${base}/:name/rows/:rowId/files`,
    scope: 'U',
    tag,
    summary: 'Uploads files (multipart/form-data, under "files"), streamed to storage; all or nothing',
    params: recordParams,
    query: FileUploadQuerySchema,
    multipart: FileUploadForm,
    status: 201,
    responses: {
      201: { description: '{ agentry: [RecordFile] }', schema: RecordFileListSchema },
      413: { description: "A file exceeds the field's maxFileSize" },
    },
    handler: async ({ auth, em, params, query, headers, stream }) => {
      const table = await findObject(em, auth.account.id, params.name);
      const receive = filesOf({ headers, stream, form: FileUploadForm });
      return { agentry: await uploadFiles(em, store, table, params.rowId, receive, { field: query.field, userId: auth.user!.id }) };
    },
  });
  api.add<unknown, unknown, FileParams>({
    method: 'get',
    operationId: 'getRecordFile',
    path: `${base}/:name/files/:id`,
    scope: 'any',
    tag,
    summary: "A file's metadata",
    params: paramsWith('id'),
    responses: { 200: { description: 'RecordFile', schema: RecordFileSchema } },
    handler: async ({ auth, em, params }) => fileView(await file(em, auth.account.id, params)),
  });
  api.add<unknown, unknown, FileParams>({
    method: 'delete',
    operationId: 'deleteRecordFile',
    path: `${base}/:name/files/:id`,
    scope: 'U',
    tag,
    summary: 'Deletes a file and its bytes',
    params: paramsWith('id'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ auth, em, params }) => deleteFile(em, store, await file(em, auth.account.id, params)),
  });
  api.add<unknown, unknown, FileParams>({
    method: 'get',
    operationId: 'downloadRecordFile',
    path: `${base}/:name/files/:id/download`,
    scope: 'any',
    tag,
    summary: 'The bytes of a file (not JSON); honours a single `Range: bytes=` range with 206, 416 beyond the end',
    params: paramsWith('id'),
    responses: {
      200: { description: 'The file, in the content type it was uploaded with', contentTypes: ['*/*'] },
      206: { description: 'The range asked for', contentTypes: ['*/*'] },
      416: { description: 'Range beyond the end' },
    },
    handler: async ({ auth, em, params, headers }) => {
      const found = await file(em, auth.account.id, params);
      const range = parseRange(headers.range, found.size);
      const common = { 'Accept-Ranges': 'bytes', 'X-Content-Type-Options': 'nosniff' };
      if (range === 'unsatisfiable') {
        return new Reply(
          416,
          { code: 'bad_request', message: `Range "${headers.range}" lies beyond the file's ${found.size} bytes` },
          { ...common, 'Content-Range': `bytes */${found.size}` },
        );
      }
      const described = {
        ...common,
        'Content-Type': found.contentType,
        'Content-Disposition': attachment(found.name),
        'Content-Length': range ? range.end - range.start + 1 : found.size,
      };
      if (!range) return new Reply(200, readFile(store, found), described);
      return new Reply(206, readFile(store, found, range), { ...described, 'Content-Range': `bytes ${range.start}-${range.end}/${found.size}` });
    },
  });
}
