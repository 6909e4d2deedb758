/** A request body as received, for routes that verify a signature over its exact bytes before parsing it. */
import type { Readable } from 'node:stream';
import { PayloadTooLargeError } from '../lib/errors.js';

/** The body's bytes, refused with 413 past `limitBytes`. */
export async function readRawBody(stream: Readable, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new PayloadTooLargeError(limitBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
