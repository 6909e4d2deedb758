/** Pagination of short in-memory lists (metadata): `limit` and an opaque offset `cursor`, answering `nextCursor`. */
import { BadRequestError } from '../lib/errors.js';

export interface Page<T> {
  agentry: T[];
  nextCursor: string | null;
}

export function paginate<T>(items: T[], limit = 50, cursor?: string): Page<T> {
  let offset = 0;
  if (cursor) {
    const decoded = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
    if (!decoded) throw new BadRequestError('Invalid cursor', [{ code: 'invalid', path: 'query.cursor', message: 'is not a cursor of this list' }]);
    offset = Number(decoded[1]);
  }
  const page = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? Buffer.from(`o:${offset + limit}`).toString('base64url') : null;
  return { agentry: page, nextCursor: next };
}
