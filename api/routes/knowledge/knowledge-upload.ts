/**
 * Uploaded knowledge-base documents: the multipart reader of record files (`receiveFiles`: the `files` field, at most
 * 20 parts, all or nothing), into memory instead of the file store, each part at most the documents' size limit
 * (MAX_DOCUMENT_BYTES, as FILE_ANALYSIS reads). The bytes then live in the document row, where the indexing worker
 * reads them, whichever machine it runs on.
 */
import { Readable } from 'node:stream';
import { receiveFiles, type IncomingUpload } from '../../multipart-upload.js';
import type { FileStore } from '../../../db/tables/files/file-store.js';
import { MAX_DOCUMENT_BYTES } from '../../../integrations/ai/document-text.js';

/** A FileStore holding one request's parts in memory. */
class MemoryStore implements FileStore {
  readonly bytes = new Map<string, Buffer>();

  async write(key: string, source: Readable): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(chunk as Buffer);
    this.bytes.set(key, Buffer.concat(chunks));
  }

  read(key: string): Readable {
    return Readable.from([this.bytes.get(key) ?? Buffer.alloc(0)]);
  }

  async remove(keys: string[]): Promise<void> {
    for (const key of keys) this.bytes.delete(key);
  }

  async *list() {}
}

export interface UploadedDocument {
  bytes: Buffer;
  fileName: string;
  contentType: string;
}

export async function readUploadedDocuments(upload: IncomingUpload): Promise<UploadedDocument[]> {
  const store = new MemoryStore();
  const files = await receiveFiles(upload, store, 'knowledge', { maxFileSize: MAX_DOCUMENT_BYTES });
  return files.map((f) => ({ bytes: store.bytes.get(f.storageKey)!, fileName: f.name, contentType: f.contentType }));
}
