/**
 * Local intent matching: a user message against the training phrases of an agent's intents, with no AI provider.
 * Pure (no I/O, no Node built-ins, deterministic), so it runs in workflow code as well as in activities.
 *
 * Each phrase (and the intent's name, an implicit phrase) scores in [0, 1] against the message (`scorer.ts`):
 *  - 1 when both normalise to the same text (`normalise.ts`: case, accents, contractions, punctuation, spacing), 0.95
 *    when they differ only in spacing ("openinghours");
 *  - the containment score when the phrase's content tokens occur in a row inside the message, so a long message that
 *    contains a training phrase still scores high: 0.7 for a one-word phrase, 0.9 for two words, 0.95 from three;
 *  - otherwise (or when higher) 0.75 × token overlap + 0.25 × character-trigram Dice. Token overlap is an F-measure
 *    (β = 2: the phrase's words being in the message matters more than extra words in it) over stemmed content
 *    tokens, typo-tolerant (one edit, two from seven letters), each weighted by how specific it is to one intent
 *    (`ln(1 + intents / intents using it)`: "cancel" counts more than "order" when two intents speak of orders).
 * An intent scores its best phrase, raised towards its coverage of the message (the share of the message's words that
 * some phrase of the intent has) when that is higher: "what does it cost" takes "what" from "what are your prices" and
 * "cost" from "how much does it cost". Candidates are the intents at or above the threshold, best first.
 *
 * Known limits, left to the AI (or a higher threshold): negation ("I don't want to cancel my order" still matches
 * Cancel order) and word senses ("what time is it" scores high on "what time do you close").
 */
import { normalise } from './normalise.js';
import { intentPhrases } from './phrases.js';
import { Scorer } from './scorer.js';

/** An intent with its training phrases, as a turn reads them (db/agents/turn-context.ts). */
export interface IntentPhrases {
  id: number;
  name: string;
  phrases: string[];
}

/** An intent's score against a message, and the phrase (or the intent's name) that gave it. */
export interface IntentCandidate {
  intentId: number;
  score: number;
  phrase: string;
}

export interface IntentMatch {
  /** The highest-scoring candidate, or null when no intent reaches the threshold. */
  best: IntentCandidate | null;
  /** One per intent at or above the threshold, by score descending (then intent id ascending). */
  candidates: IntentCandidate[];
  /** The top two candidates are within `tieMargin`: the caller may ask the AI to break the tie. */
  ambiguous: boolean;
}

export interface IntentMatchOptions {
  /** Lowest score of a candidate, in [0, 1]. Default `DEFAULT_INTENT_THRESHOLD`. */
  threshold?: number;
  /** Largest gap between the top two candidates that still counts as a tie. Default `DEFAULT_TIE_MARGIN`. */
  tieMargin?: number;
}

/**
 * Chosen from the table of `test/unit/intent-match.cases.ts`: every paraphrase, typo, reordering and long message
 * there scores at least 0.62 for its intent, and every unrelated message or near-miss (cancelling a subscription,
 * ordering a pizza) scores at most 0.56 on any intent, so 0.6 sits in that gap.
 */
export const DEFAULT_INTENT_THRESHOLD = 0.6;
/** Top two candidates closer than this are a tie for the AI to break. */
export const DEFAULT_TIE_MARGIN = 0.05;

/** Share of the intent-wide coverage in an intent's score (see `Scorer.coverage`). */
const COVERAGE_SHARE = 0.6;

/** Matches `message` against the intents' training phrases; see the module comment for the scoring. */
export function matchIntents(message: string, intents: IntentPhrases[], options: IntentMatchOptions = {}): IntentMatch {
  const threshold = options.threshold ?? DEFAULT_INTENT_THRESHOLD;
  const tieMargin = options.tieMargin ?? DEFAULT_TIE_MARGIN;
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError('threshold must be between 0 and 1');
  if (!(tieMargin >= 0)) throw new RangeError('tieMargin must not be negative');
  const msg = normalise(message);
  if (!msg.tokens.length) return { best: null, candidates: [], ambiguous: false };
  const scorer = new Scorer(
    msg,
    intents.map((i) => intentPhrases(i.name, i.phrases)),
  );
  const candidates: IntentCandidate[] = [];
  intents.forEach((intent, i) => {
    let best: IntentCandidate | null = null;
    scorer.intentBest.fill(0);
    for (const phrase of scorer.phrases[i]) {
      const score = round(scorer.score(phrase));
      if (!best || score > best.score) best = { intentId: intent.id, score, phrase: phrase.text };
    }
    if (best) best.score = round(Math.max(best.score, (1 - COVERAGE_SHARE) * best.score + COVERAGE_SHARE * scorer.coverage()));
    if (best && best.score >= threshold) candidates.push(best);
  });
  candidates.sort((a, b) => b.score - a.score || a.intentId - b.intentId);
  const ambiguous = candidates.length > 1 && candidates[0].score - candidates[1].score <= tieMargin + 1e-9;
  return { best: candidates[0] ?? null, candidates, ambiguous };
}

const round = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 10_000) / 10_000;
