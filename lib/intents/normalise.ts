/**
 * Text normalisation for local intent matching: pure string functions with no imports, so that workflow code can use
 * them. A text becomes a normalised string (for exact comparison) and a list of content tokens (stop words dropped,
 * lightly stemmed) that the similarity measures of `intent-match.ts` work on.
 */

/** A text reduced to what the matcher compares. */
export interface NormalisedText {
  /** Lower case, accents removed, contractions expanded, punctuation stripped, single spaces. */
  normal: string;
  /** Stemmed tokens of `normal` without stop words (all tokens when every one is a stop word), in order. */
  tokens: string[];
}

// Apostrophe contractions. Negations stay as "not" (not a stop word): "don't cancel" keeps its "not" token.
const CONTRACTIONS: [RegExp, string][] = [
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\bshan't\b/g, 'shall not'],
  [/\bain't\b/g, 'is not'],
  [/n't\b/g, ' not'],
  [/'re\b/g, ' are'],
  [/'m\b/g, ' am'],
  [/'ll\b/g, ' will'],
  [/'ve\b/g, ' have'],
  [/'d\b/g, ' would'],
  [/\blet's\b/g, 'let us'],
  [/\b(it|that|what|where|when|who|how|there|here|he|she)'s\b/g, '$1 is'],
  // Any other 's is a possessive ("order's status").
  [/'s\b/g, ''],
];

// The same contractions typed without their apostrophe, as chat users do.
const BARE_CONTRACTIONS: Record<string, string> = {
  dont: 'do not',
  doesnt: 'does not',
  didnt: 'did not',
  isnt: 'is not',
  arent: 'are not',
  wasnt: 'was not',
  werent: 'were not',
  havent: 'have not',
  hasnt: 'has not',
  cant: 'can not',
  cannot: 'can not',
  couldnt: 'could not',
  wouldnt: 'would not',
  shouldnt: 'should not',
  im: 'i am',
  ive: 'i have',
  youre: 'you are',
  whats: 'what is',
  wheres: 'where is',
  hows: 'how is',
  thats: 'that is',
  wanna: 'want to',
  gonna: 'going to',
};

// Function words that carry no intent. Question words (what, when, where, how) are kept: they separate "when do you
// open" from "where is my order". Generic request verbs (want, need, like) are dropped: every intent uses them.
const STOP_WORDS = new Set(
  (
    'a an the is are am was were be been being to of i me my mine you your yours we us our it its this that these those ' +
    'for on in at by with from and or so just please pls plz can could would will shall should do does did have has had ' +
    'there here some any about into oh ok okay um uh want need like wish let kindly also very really'
  ).split(' '),
);

/**
 * Light English stemming: plural, -ing, -ed and -ation suffixes, a final e or y, and a final double consonant, so
 * that "cancelled", "cancelling", "cancellation" and "cancel" share a stem, as do "price", "prices" and "pricing".
 * Stems need not be words; they only have to agree. Words with digits or non-ASCII letters are left alone.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let s = word;
  if (/i(es|ed)$/.test(s) && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('ation') && s.length > 7) s = s.slice(0, -5);
  else if (s.endsWith('ing') && s.length > 5) s = s.slice(0, -3);
  else if (s.endsWith('ed') && s.length > 4) s = s.slice(0, -2);
  else if (/(ss|sh|ch|x|z)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.length > 3 && /[ey]$/.test(s)) s = s.slice(0, -1);
  if (s.length > 3 && /([^aeiou])\1$/.test(s)) s = s.slice(0, -1);
  return s;
}

/** Lower case, no accents, contractions expanded, punctuation stripped, whitespace collapsed. */
export function normaliseText(text: string): string {
  // camelCase and snake_case intent names read as words ("orderStatus", "order_status" → "order status").
  let s = text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2');
  // Plain ASCII (most messages) has nothing to decompose: skipping NFKD halves the time of a cold match.
  if (!/^[\x20-\x7e]*$/.test(s)) s = s.normalize('NFKD').replace(/\p{M}/gu, '');
  s = s.toLowerCase().replace(/[\u2018\u2019\u02bc`´]/g, "'");
  if (s.includes("'")) for (const [pattern, replacement] of CONTRACTIONS) s = s.replace(pattern, replacement);
  const words = s
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ');
  return words
    .map((w) => BARE_CONTRACTIONS[w] ?? w)
    .join(' ')
    .trim();
}

/** The normalised string and content tokens of a text. */
export function normalise(text: string): NormalisedText {
  const normal = normaliseText(text);
  if (!normal) return { normal, tokens: [] };
  const words = normal.split(' ');
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return { normal, tokens: (content.length ? content : words).map(stem) };
}
