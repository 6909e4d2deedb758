/**
 * Receives the files of a `multipart/form-data` body and streams each one into the file store as it arrives:
 * no file is ever held whole in memory, and sizes are counted while the bytes pass. All or nothing: when any file
 * is refused, or the client goes away midway, the bytes already stored are removed before the promise rejects.
 * Only the parts the route's form documents are taken: files under `files`, text fields the form names; a part under
 * any other name refuses the whole upload (400 naming it), before or after files it carried were stored.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { AppError, BadRequestError } from '../lib/errors.js';
import type { FileRules, FileStore, ReceiveFiles, StoredFile } from '../db/tables/files/file-store.js';
import type { JsonSchema } from './validation.js';

/** The request as an upload: its headers, its unread body and the form its route documents (OpenAPI `multipart`). */
export interface IncomingUpload {
  headers: IncomingHttpHeaders;
  stream: Readable;
  form: JsonSchema;
}

/** Form field the files come under (SPEC.md). */
export const FILES_FIELD = 'files';
/** Most files one request may carry. */
export const MAX_FILES_PER_UPLOAD = 20;

/** A file over the field's `maxFileSize`: 413. */
export class FileTooLargeError extends AppError {
  constructor(name: string, limit: number) {
    super(413, 'payload_too_large', `File "${name}" exceeds the field's maxFileSize of ${limit} bytes`, {
      issues: [{ code: 'too_large', path: FILES_FIELD, message: `"${name}" is larger than ${limit} bytes` }],
    });
  }
}

/** The client went away before the body ended; nobody reads the answer, but the error must not look like ours. */
class UploadAbortedError extends BadRequestError {
  constructor() {
    super('The upload ended before the whole body arrived', FILES_FIELD);
  }
}

/** Whether a file matches one of the allowed types: extensions (`pdf`, `.pdf`) or media types (`image/png`, `image/*`). */
export function isAllowedType(allowed: string[], name: string, contentType: string): boolean {
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  const media = contentType.toLowerCase();
  return allowed.some((entry) => {
    const type = entry.trim().toLowerCase();
    if (!type.includes('/')) return type.replace(/^\./, '') === extension;
    return type.endsWith('/*') ? media.startsWith(type.slice(0, -1)) : media === type;
  });
}

/** The file name without any folder part or control characters, at most 255 characters. */
export function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? '')
    .split(/[/\\]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'file').slice(0, 255);
}

function sizeCounter(file: StoredFile, limit: number | undefined): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      file.size += chunk.length;
      if (limit !== undefined && file.size > limit) done(new FileTooLargeError(file.name, limit));
      else done(null, chunk);
    },
  });
}

function openParser(headers: IncomingHttpHeaders): busboy.Busboy {
  try {
    return busboy({ headers, defParamCharset: 'utf8', limits: { files: MAX_FILES_PER_UPLOAD, fields: 50 } });
  } catch {
    throw new BadRequestError('Send the files as multipart/form-data under the "files" field', [
      { code: 'invalid', path: 'body', message: 'expected Content-Type multipart/form-data with a boundary' },
    ]);
  }
}

/** The text fields a route's form documents: its properties other than the files. */
function textFieldsOf(form: JsonSchema): Set<string> {
  const properties = Object.keys((form.properties as Record<string, unknown> | undefined) ?? {});
  if (!properties.includes(FILES_FIELD)) throw new Error(`A multipart form must document its "${FILES_FIELD}" field`);
  return new Set(properties.filter((name) => name !== FILES_FIELD));
}

/** A part under a name the route's form does not document: 400 naming it. */
function undocumentedPart(field: string, kind: 'file' | 'text', textFields: Set<string>): BadRequestError {
  const expected = [`"${FILES_FIELD}" (files)`, ...[...textFields].map((name) => `"${name}"`)].join(', ');
  const message =
    kind === 'text' && field === FILES_FIELD
      ? `"${FILES_FIELD}" takes files (parts with a filename), not text`
      : `Unexpected ${kind} part "${field}": this upload takes ${expected}`;
  return new BadRequestError(message, [{ code: 'invalid', path: field, message }]);
}

/** The files of `upload`'s multipart body, as the services read uploads (`ReceiveFiles`). */
export const filesOf =
  (upload: IncomingUpload): ReceiveFiles =>
  (store, keyPrefix, rules) =>
    receiveFiles(upload, store, keyPrefix, rules);

/**
 * Streams every file under `files` into the store under `<keyPrefix>/<uuid>`; resolves with them in order. A part
 * under a name `upload.form` does not document refuses the upload.
 */
export function receiveFiles(upload: IncomingUpload, store: FileStore, keyPrefix: string, rules: FileRules = {}): Promise<StoredFile[]> {
  const textFields = textFieldsOf(upload.form);
  const parser = openParser(upload.headers);
  const source = upload.stream;
  const files: StoredFile[] = [];
  const writes: Promise<void>[] = [];
  let failure: Error | undefined;

  return new Promise<StoredFile[]>((resolve, reject) => {
    let settled = false;
    const settle = async (): Promise<void> => {
      if (settled) return;
      settled = true;
      const results = await Promise.allSettled(writes);
      const error = failure ?? results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
      if (!error && !files.length)
        failure = new BadRequestError('No file in the upload', [{ code: 'required', path: FILES_FIELD, message: 'at least one file is required' }]);
      if (error || failure) {
        await store.remove(files.map((f) => f.storageKey)).catch(() => undefined);
        // Read what the client still sends, so it gets the answer instead of a reset connection.
        if (!source.readableEnded && !source.destroyed) await new Promise<void>((done) => source.once('end', done).once('close', done).resume());
        reject(error ?? failure);
      } else resolve(files);
    };
    const fail = (error: Error): void => {
      failure ??= error;
      source.unpipe(parser);
      parser.destroy(failure);
      void settle();
    };

    parser.on('file', (field, stream, info) => {
      // Destroying the parser destroys the part in flight with the failure, already reported through `fail`.
      stream.on('error', () => undefined);
      if (failure) return void stream.resume();
      if (field !== FILES_FIELD) return fail(undocumentedPart(field, 'file', textFields));
      const file: StoredFile = {
        name: cleanFileName(info.filename),
        contentType: info.mimeType || 'application/octet-stream',
        size: 0,
        storageKey: `${keyPrefix}/${randomUUID()}`,
      };
      const index = files.push(file) - 1;
      if (rules.allowedFileTypes?.length && !isAllowedType(rules.allowedFileTypes, file.name, file.contentType)) {
        return fail(
          new BadRequestError(`File "${file.name}" (${file.contentType}) is not of an allowed type: ${rules.allowedFileTypes.join(', ')}`, [
            { code: 'invalid', path: `${FILES_FIELD}[${index}]`, message: `allowed types: ${rules.allowedFileTypes.join(', ')}` },
          ]),
        );
      }
      const counted = sizeCounter(file, rules.maxFileSize);
      const write = Promise.all([pipeline(stream, counted), store.write(file.storageKey, counted)]).then(() => undefined);
      writes.push(write);
      write.catch((error: Error) => fail(error));
    });
    parser.on('field', (field: string) => {
      if (!failure && !textFields.has(field)) fail(undocumentedPart(field, 'text', textFields));
    });
    parser.on('filesLimit', () =>
      fail(
        new BadRequestError(`At most ${MAX_FILES_PER_UPLOAD} files per upload`, [
          { code: 'invalid', path: FILES_FIELD, message: `more than ${MAX_FILES_PER_UPLOAD} files` },
        ]),
      ),
    );
    parser.on('error', (error: Error) =>
      fail(error instanceof AppError ? error : new BadRequestError(`Malformed multipart body: ${error.message}`, 'body')),
    );
    parser.on('finish', () => void settle());
    source.on('error', () => fail(new UploadAbortedError()));
    source.on('close', () => {
      if (!source.readableEnded) fail(new UploadAbortedError());
    });
    source.pipe(parser);
  });
}
