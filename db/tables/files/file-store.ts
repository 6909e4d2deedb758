/**
 * Where the bytes of record files live. The local folder store is the default; an S3-compatible store implements
 * the same operations (a multipart upload for `write`, a ranged GET for `read`, DeleteObjects for `remove`,
 * ListObjectsV2 with LastModified for `list`).
 */
import type { Readable } from 'node:stream';

/** Inclusive byte range, as in an HTTP `Range` header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What `list` answers of each stored object. */
export interface StoredObject {
  key: string;
  /** When its bytes were last written. */
  modifiedAt: Date;
}

export interface FileStore {
  /**
   * Stores the stream's bytes under `key`, resolving once all are durable. The bytes appear under `key` whole or
   * not at all: an upload in progress, or one a crash cut short, is under another name (that `list` shows too).
   * When the stream fails (a client gone midway, a size limit), rejects and leaves nothing stored.
   */
  write(key: string, source: Readable): Promise<void>;
  /** The bytes under `key` (only `range` of them when given), as a stream. */
  read(key: string, range?: ByteRange): Readable;
  /** Removes the bytes of every key; keys with nothing stored are ignored. */
  remove(keys: string[]): Promise<void>;
  /** Every stored object, unfinished writes included, in no particular order (see orphan-sweep.ts). */
  list(): AsyncIterable<StoredObject>;
}

/** Limits of a file field (SPEC.md, Field: `allowedFileTypes`, `maxFileSize`). */
export interface FileRules {
  allowedFileTypes?: string[];
  maxFileSize?: number;
}

/** A file whose bytes are stored. */
export interface StoredFile {
  name: string;
  contentType: string;
  size: number;
  storageKey: string;
}

/**
 * The files of one upload as they arrive, each streamed into `store` under `<keyPrefix>/…` following `rules`;
 * resolves with them in order. All or nothing: when one is refused, the bytes already stored are removed before it
 * rejects. The API reads a request's multipart body this way (api/multipart-upload.ts).
 */
export type ReceiveFiles = (store: FileStore, keyPrefix: string, rules: FileRules) => Promise<StoredFile[]>;
