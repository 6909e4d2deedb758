/**
 * Entity tags of documents (RFC 9110, 8.8.3): a strong tag derived from the document as its GET answers it, so any
 * change of what a client can read changes the tag. `If-Match` makes a write conditional (412 when the document
 * changed since it was read); `If-None-Match` spares a GET the body of a document the client already has (304).
 */
import { createHash } from 'node:crypto';
import { PreconditionFailedError } from '../lib/errors.js';

export function etagOf(document: unknown): string {
  return `"${createHash('sha256')
    .update(JSON.stringify(document) ?? '')
    .digest('base64url')
    .slice(0, 27)}"`;
}

/** The tags of an `If-Match` / `If-None-Match` header (`*` stands for any); weak tags keep their `W/` prefix. */
function tagsOf(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** Refuses a write whose `If-Match` names none of the document's current tag (strong comparison). */
export function checkIfMatch(header: string | undefined, document: unknown): void {
  if (header === undefined) return;
  const tags = tagsOf(header);
  if (tags.includes('*') || tags.includes(etagOf(document))) return;
  throw new PreconditionFailedError(
    `If-Match ${header} does not match the current version of the document (ETag ${etagOf(document)}): it changed since you read it; nothing was written. Read it again and retry`,
  );
}

/** Whether an `If-None-Match` names the tag (weak comparison, as for GET): the client's copy is current. */
export function noneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const tags = tagsOf(header).map((t) => t.replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(tag);
}
