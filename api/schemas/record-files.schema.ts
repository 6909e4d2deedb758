/** Answers of the file endpoints of Object records, and the upload's multipart form. */
import type { JsonSchema } from '../validation.js';
import { pageSchema, strictObject, userRefSchema } from './common.schema.js';

const file: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'rowId', 'fieldId', 'name', 'contentType', 'size', 'uploadedBy', 'createdAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    object: { type: 'string', description: 'Name of the Object' },
    rowId: { type: 'string', pattern: '^[0-9a-f]{24}$' },
    fieldId: { type: ['integer', 'null'], description: 'The file field it was uploaded for' },
    name: { type: 'string', description: 'File name as uploaded' },
    contentType: { type: 'string' },
    size: { type: 'integer', description: 'Bytes' },
    uploadedBy: userRefSchema,
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const RecordFileSchema: JsonSchema = { $id: 'RecordFile', ...file };

export const RecordFilePageSchema: JsonSchema = pageSchema(file);

export const RecordFileListSchema: JsonSchema = strictObject({ agentry: { type: 'array', items: file } });

/** The upload's parts: `files` only; a part under any other name is refused (api/multipart-upload.ts reads this). */
export const FileUploadForm: JsonSchema = {
  type: 'object',
  required: ['files'],
  additionalProperties: false,
  properties: { files: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'One part per file (at most 20)' } },
};

export const FileUploadQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    field: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: "A file field (name or id): its allowedFileTypes and maxFileSize apply, and the record's value of it lists the new files",
    },
  },
};
