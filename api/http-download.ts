/** HTTP pieces of file answers: `Range` requests (RFC 9110 §14) and download file names (RFC 6266, RFC 5987). */
import type { ByteRange } from '../db/tables/files/file-store.js';

/**
 * The byte range a `Range` header asks of a `size`-byte file: undefined for the whole file (no header, another
 * unit, several ranges, or a malformed header, which RFC 9110 lets a server ignore), 'unsatisfiable' when the
 * range lies beyond the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  return end < start ? undefined : { start, end };
}

/**
 * `attachment` with the name in two forms: a plain ASCII `filename` for old clients (other characters replaced)
 * and the exact UTF-8 name as `filename*`, percent-encoded, which every current browser prefers.
 */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
