/**
 * The text a chunk's full-text vector is built from, and a question's words are read from: the text itself, with
 * each code identifier followed by its words. PostgreSQL's parser reads `iconv.decode` as one host name,
 * `collectDefaultMetrics` as one word and `dotenv/config` as one file path, so a question about "decoding" or
 * "default metrics" would never meet them; after `searchableText` it does (`iconv.decode iconv decode`). The stored
 * text is unchanged: only the vector (and the question's lexemes) see the words. Pure: the indexer and the search
 * both use it, so a question written as code meets the code it names.
 */

/** A URL (left as it is: its parts are not words of the text), or an identifier: segments joined by `.` or `/`. */
const TOKEN = /(https?:\/\/[^\s)>\]]+)|[A-Za-z_$][\w$]*(?:[./][A-Za-z_$][\w$]*)*/g;

/** The words of an identifier: split at `.`, `/`, `_`, `$` and camelCase humps (`XMLHttpRequest` → XML Http Request). */
export function identifierWords(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s./_$]+/)
    .filter(Boolean);
}

/** `text` with each identifier of several words followed by those words. */
export function searchableText(text: string): string {
  return text.replace(TOKEN, (token, url: string | undefined) => {
    if (url) return token;
    const words = identifierWords(token);
    return words.length > 1 ? `${token} ${words.join(' ')}` : token;
  });
}
