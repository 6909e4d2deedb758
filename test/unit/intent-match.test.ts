/** Local intent matching (no AI provider): a table of messages against six intents, then thresholds and ties. */
import { expect } from 'chai';
import { DEFAULT_INTENT_THRESHOLD, matchIntents, type IntentPhrases } from '../../lib/intents/intent-match.js';
import { normalise, normaliseText, stem } from '../../lib/intents/normalise.js';
import { CANCEL_ORDER, CASES, GREETING, INTENTS, OPENING_HOURS, ORDER_STATUS, PRICING } from './intent-match.cases.js';

const scores = (message: string, intents = INTENTS) =>
  matchIntents(message, intents, { threshold: 0 })
    .candidates.map((c) => `${c.intentId}:${c.score}`)
    .join(' ');

describe('local intent matching', () => {
  describe('the table of phrases and near-misses', () => {
    for (const c of CASES) {
      const label = typeof c.expect === 'number' ? `intent ${c.expect}` : c.expect === null ? 'nothing' : 'a tie';
      it(`${JSON.stringify(c.message)} matches ${label} (${c.why})`, () => {
        const result = matchIntents(c.message, INTENTS);
        const detail = `scores: ${scores(c.message)}`;
        if (typeof c.expect === 'number') {
          expect(result.best?.intentId, detail).to.equal(c.expect);
          expect(result.ambiguous, detail).to.equal(false);
        } else if (c.expect === null) {
          expect(result.best, detail).to.equal(null);
          expect(result.candidates, detail).to.deep.equal([]);
        } else {
          expect(result.ambiguous, detail).to.equal(true);
          expect(
            result.candidates.slice(0, 2).map((x) => x.intentId),
            detail,
          ).to.have.members(c.expect.ambiguous);
        }
      });
    }
  });

  it('has its default threshold in the gap between the matches and the non-matches of the table', () => {
    const top = (message: string, intentId?: number) =>
      matchIntents(message, INTENTS, { threshold: 0 }).candidates.find((c) => intentId === undefined || c.intentId === intentId)?.score ?? 0;
    const matches = CASES.filter((c) => typeof c.expect === 'number').map((c) => top(c.message, c.expect as number));
    const misses = CASES.filter((c) => c.expect === null).map((c) => top(c.message));
    expect(Math.min(...matches))
      .to.be.at.least(0.62)
      .and.above(DEFAULT_INTENT_THRESHOLD);
    expect(Math.max(...misses))
      .to.be.at.most(0.56)
      .and.below(DEFAULT_INTENT_THRESHOLD);
  });

  it('scores an exact phrase 1, names the phrase, and counts the intent name as a phrase', () => {
    expect(matchIntents('What are your opening hours?', INTENTS).best).to.deep.equal({
      intentId: OPENING_HOURS,
      score: 1,
      phrase: 'What are your opening hours?',
    });
    expect(matchIntents('order status', INTENTS).best).to.deep.equal({ intentId: ORDER_STATUS, score: 1, phrase: 'order_status' });
    const nameless = INTENTS.map((i) => ({ ...i, name: `intent ${i.id}` }));
    expect(matchIntents('order status', nameless).best?.score ?? 0).to.be.below(1);
  });

  it('keeps every score in [0, 1], lists candidates best first, and does not depend on the order of the intents', () => {
    for (const c of CASES) {
      const all = matchIntents(c.message, INTENTS, { threshold: 0 }).candidates;
      for (const x of all) expect(x.score).to.be.within(0, 1);
      expect(all.map((x) => x.score)).to.deep.equal([...all.map((x) => x.score)].sort((p, q) => q - p));
      expect(matchIntents(c.message, [...INTENTS].reverse())).to.deep.equal(matchIntents(c.message, INTENTS));
    }
  });

  it('lists only intents at or above the threshold, which a caller may raise or lower', () => {
    const message = 'hello, can you tell me your opening hours?';
    const byDefault = matchIntents(message, INTENTS);
    expect(byDefault.candidates.map((c) => c.intentId)).to.deep.equal([OPENING_HOURS, GREETING]);
    expect(byDefault.candidates.every((c) => c.score >= DEFAULT_INTENT_THRESHOLD)).to.equal(true);
    const [first, second] = byDefault.candidates;
    expect(matchIntents(message, INTENTS, { threshold: second.score }).candidates).to.have.length(2);
    expect(matchIntents(message, INTENTS, { threshold: second.score + 0.0001 }).candidates).to.deep.equal([first]);
    expect(matchIntents(message, INTENTS, { threshold: 1 }).best).to.equal(null);
    expect(matchIntents(message, INTENTS, { threshold: 0 }).candidates).to.have.length(INTENTS.length);
    expect(() => matchIntents(message, INTENTS, { threshold: 1.5 })).to.throw(RangeError, /threshold/);
    expect(() => matchIntents(message, INTENTS, { tieMargin: -1 })).to.throw(RangeError, /tieMargin/);
  });

  it('calls a tie when the top two are within the margin, and only then', () => {
    // "order" alone: both order intents score almost the same.
    const order = matchIntents('order', INTENTS);
    const gap = order.candidates[0].score - order.candidates[1].score;
    expect(gap).to.be.above(0).and.at.most(0.05);
    expect(order.ambiguous).to.equal(true);
    expect(matchIntents('order', INTENTS, { tieMargin: gap / 2 }).ambiguous).to.equal(false);
    // A greeting with a question: a clear winner unless the margin is wide.
    const mixed = 'hello, can you tell me your opening hours?';
    expect(matchIntents(mixed, INTENTS).ambiguous).to.equal(false);
    expect(matchIntents(mixed, INTENTS, { tieMargin: 0.5 }).ambiguous).to.equal(true);
    // The same phrase in two intents is an exact tie whatever the margin.
    const twins: IntentPhrases[] = [
      { id: 10, name: 'Billing', phrases: ['question about my invoice'] },
      { id: 11, name: 'Accounting', phrases: ['question about my invoice'] },
    ];
    const twin = matchIntents('question about my invoice', twins, { tieMargin: 0 });
    expect(twin).to.deep.include({ ambiguous: true, best: { intentId: 10, score: 1, phrase: 'question about my invoice' } });
    // One candidate alone is never a tie.
    expect(matchIntents('pricing', INTENTS, { tieMargin: 1 })).to.deep.include({ ambiguous: false });
    expect(matchIntents('pricing', INTENTS).best?.intentId).to.equal(PRICING);
  });

  it('matches nothing with no intents, no phrases or an empty message', () => {
    expect(matchIntents('cancel my order', [])).to.deep.equal({ best: null, candidates: [], ambiguous: false });
    expect(matchIntents('', INTENTS)).to.deep.equal({ best: null, candidates: [], ambiguous: false });
    expect(matchIntents('cancel my order', [{ id: 1, name: '', phrases: ['', '  ', '?!'] }]).best).to.equal(null);
    expect(matchIntents('cancel my order', [{ id: CANCEL_ORDER, name: '', phrases: ['cancel my order'] }]).best?.score).to.equal(1);
  });

  it('normalises case, accents, contractions, punctuation and spacing, and stems plurals, -ing and -ed', () => {
    expect(normaliseText("  Where's   MY órder?! I can't  find it… ")).to.equal('where is my order i can not find it');
    expect(normaliseText('I’m sure it won’t ship; dont worry')).to.equal('i am sure it will not ship do not worry');
    expect(normaliseText('orderStatus / talk_to_human')).to.equal('order status talk to human');
    expect(normaliseText('Ｃａｆé  crème')).to.equal('cafe creme');
    const stems = (words: string) => words.split(' ').map(stem);
    expect(new Set(stems('cancel cancels cancelled canceling cancellation'))).to.have.property('size', 1);
    expect(new Set(stems('price prices pricing priced'))).to.have.property('size', 1);
    expect(new Set(stems('open opens opening opened'))).to.have.property('size', 1);
    expect(new Set(stems('delivery deliveries delivered'))).to.have.property('size', 1);
    expect(stems('status this hi 4411 naïve')).to.deep.equal(['status', 'this', 'hi', '4411', 'naïve']);
    expect(normalise('Can you please tell me the opening hours?').tokens).to.deep.equal(['tel', 'open', 'hour']);
    expect(normalise('can you').tokens).to.deep.equal(['can', 'you']);
  });
});
