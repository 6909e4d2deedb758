/**
 * Where the bytes of record files live. The local folder store is the default; an S3-compatible store implements
 * the same three operations (a multipart upload for `write`, a ranged GET for `read`, DeleteObjects for `remove`).
 */
import type { Readable } from 'node:stream';

/** Inclusive byte range, as in an HTTP `Range` header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStore {
  /**
   * Stores the stream's bytes under `key`, resolving once all are durable. When the stream fails (a client gone
   * midway, a size limit), rejects and leaves nothing stored under `key`.
   */
  write(key: string, source: Readable): Promise<void>;
  /** The bytes under `key` (only `range` of them when given), as a stream. */
  read(key: string, range?: ByteRange): Readable;
  /** Removes the bytes of every key; keys with nothing stored are ignored. */
  remove(keys: string[]): Promise<void>;
}
