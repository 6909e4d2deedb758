/**
 * Full-text search over a row's text fields: the `_search` tsvector that the row table's trigger keeps as
 * `to_tsvector('simple', <string fields>)` (ddl.ts).
 *
 * Each whitespace-separated word of the search must match as a prefix (`word:*`) of some lexeme of the row,
 * all words together (AND). Words are passed to `to_tsquery` as quoted operands (`'word':*`, quotes and
 * backslashes doubled), so the parser sees them only as text to tokenize like the indexed text (an e-mail
 * address stays one token, `foo-bar` gives `foo-bar`, `foo` and `bar`), and no tsquery operator typed by the
 * user (`&`, `|`, `!`, `<->`, `:*`, parentheses) is ever interpreted. Words without a letter or a digit are
 * dropped; a search with no word left (empty, only spaces or punctuation) matches every row, like an empty
 * search box. At most MAX_SEARCH_WORDS words are used, each cut to MAX_SEARCH_WORD_LENGTH characters (a
 * shorter prefix still matches what the whole word would).
 */
import { fragment, MATCH_ALL, qualified, type SqlFragment } from './fragment.js';

export const MAX_SEARCH_WORDS = 32;
export const MAX_SEARCH_WORD_LENGTH = 100;

/** The tsquery text of a search, or null when it has no word to look for. */
export function searchQueryText(search: string): string | null {
  const words = search
    .split(/[\s\u0000]+/u)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, MAX_SEARCH_WORDS)
    .map((word) => Array.from(word).slice(0, MAX_SEARCH_WORD_LENGTH).join(''))
    .map((word) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`);
  return words.length ? words.join(' & ') : null;
}

/**
 * `"alias"."_search" @@ to_tsquery('simple', ?)` for the search, or `true` when it has no word. `computed` lists
 * text columns that have no place in `_search` (formula columns); their words count as well.
 */
export function compileSearch(search: string | null | undefined, alias: string, computed: string[] = []): SqlFragment {
  const query = typeof search === 'string' ? searchQueryText(search) : null;
  if (query === null) return { ...MATCH_ALL, bindings: [] };
  if (!computed.length) return fragment("?? @@ to_tsquery('simple', ?)", qualified(alias, '_search'), query);
  const text = computed.map(() => '??').join(', ');
  return fragment(
    `(coalesce(??, ''::tsvector) || to_tsvector('simple', concat_ws(' ', ${text}))) @@ to_tsquery('simple', ?)`,
    qualified(alias, '_search'),
    ...computed.map((column) => qualified(alias, column)),
    query,
  );
}
