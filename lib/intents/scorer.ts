/**
 * Scoring of prepared phrases against one message, with token weights taken from one set of intents. Pure; see
 * `intent-match.ts` for what the scores mean.
 */
import type { NormalisedText } from './normalise.js';
import type { Phrase } from './phrases.js';
import { containsRun, tokenSimilarity, trigramDice, trigrams } from './similarity.js';

// F-measure β² of token overlap: recall (the phrase's words are in the message) counts four times precision (the
// message has no other words), since users wrap requests in words of their own.
const RECALL_BETA2 = 2 * 2;
// Question words tell intents apart ("when do you open", "where is my order") but say little alone: "how are you" is
// not a question about prices.
const QUESTION_WORDS = new Set(['what', 'when', 'where', 'how', 'who', 'which', 'why']);
const QUESTION_WEIGHT = 0.35;
// A message word no intent knows weighs three quarters of the rarest known one: "cancel my subscription" is not about
// orders, but "open on saturday" is still about opening hours.
const UNKNOWN_WEIGHT = 0.75;

/** Scores phrases against one message, with the token weights of one set of intents. */
export class Scorer {
  /**
   * Per token of the intents' phrases: its weight, and the message tokens it resembles with how much (most tokens
   * resemble none, so scoring a phrase only visits the few pairs that count).
   */
  private readonly known = new Map<string, { weight: number; at: number[]; sims: number[] }>();
  /** Per message token: not a question word (only those count towards coverage). */
  private readonly strong: boolean[];
  private readonly messageWeights: number[];
  private readonly messageWeightSum: number;
  private readonly messageGrams: Int32Array;
  private readonly compact: string;
  private readonly bestPerMessageToken: Float64Array;
  readonly intentBest: Float64Array;

  constructor(
    private readonly msg: NormalisedText,
    readonly phrases: Phrase[][],
  ) {
    // Per token, how many intents use it (counted once per intent: `lastIntent` remembers the last one counted).
    const intentsUsing = new Map<string, number>();
    const lastIntent = new Map<string, number>();
    phrases.forEach((intent, i) => {
      for (const phrase of intent) {
        for (const token of phrase.tokens) {
          if (lastIntent.get(token) === i) continue;
          lastIntent.set(token, i);
          intentsUsing.set(token, (intentsUsing.get(token) ?? 0) + 1);
        }
      }
    });
    const n = Math.max(1, phrases.length);
    const weak = (token: string) => (QUESTION_WORDS.has(token) ? QUESTION_WEIGHT : 1);
    for (const [token, count] of intentsUsing) {
      const at: number[] = [];
      const sims: number[] = [];
      msg.tokens.forEach((m, j) => {
        const sim = tokenSimilarity(token, m);
        if (sim > 0) {
          at.push(j);
          sims.push(sim);
        }
      });
      this.known.set(token, { weight: weak(token) * Math.log(1 + n / count), at, sims });
    }
    this.messageWeights = msg.tokens.map((t) => this.known.get(t)?.weight ?? weak(t) * UNKNOWN_WEIGHT * Math.log(1 + n));
    this.strong = msg.tokens.map((t) => !QUESTION_WORDS.has(t));
    this.messageWeightSum = this.messageWeights.reduce((a, b) => a + b, 0);
    this.messageGrams = trigrams(msg.tokens);
    this.compact = msg.normal.replaceAll(' ', '');
    this.bestPerMessageToken = new Float64Array(msg.tokens.length);
    this.intentBest = new Float64Array(msg.tokens.length);
  }

  score(phrase: Phrase): number {
    if (phrase.normal === this.msg.normal) return 1;
    // The same letters with other spacing: "openinghours", "log in" for "login".
    if (phrase.compact === this.compact) return 0.95;
    const best = this.bestPerMessageToken.fill(0);
    let recalled = 0;
    let phraseWeight = 0;
    for (const token of phrase.tokens) {
      const { weight, at, sims } = this.known.get(token)!;
      let top = 0;
      for (let k = 0; k < at.length; k++) {
        if (sims[k] > top) top = sims[k];
        if (sims[k] > best[at[k]]) best[at[k]] = sims[k];
      }
      recalled += weight * top;
      phraseWeight += weight;
    }
    let precise = 0;
    for (let j = 0; j < best.length; j++) precise += this.messageWeights[j] * best[j];
    for (let j = 0; j < best.length; j++) if (best[j] > this.intentBest[j]) this.intentBest[j] = best[j];
    const recall = recalled / phraseWeight;
    const precision = precise / this.messageWeightSum;
    const overlap = recall + precision > 0 ? ((1 + RECALL_BETA2) * precision * recall) / (RECALL_BETA2 * precision + recall) : 0;
    const blended = 0.75 * overlap + 0.25 * trigramDice(this.messageGrams, phrase.grams);
    return Math.max(blended, this.containment(phrase));
  }

  coverage(): number {
    let c = 0;
    for (let j = 0; j < this.intentBest.length; j++) if (this.strong[j]) c += this.messageWeights[j] * this.intentBest[j];
    return c / this.messageWeightSum;
  }

  private containment(phrase: Phrase): number {
    if (!containsRun(this.msg.tokens, phrase.tokens)) return 0;
    const length = phrase.tokens.length;
    return length === 1 ? 0.7 : Math.min(0.95, 0.8 + 0.05 * length);
  }
}
