/**
 * The rewordings multi-query retrieval reads from a chat model's answer (`lib/knowledge/query-rewrite.ts`): JSON as
 * asked, or the lines a local model writes instead.
 */
import { expect } from 'chai';
import { readRewrites, rewriteMessages } from '../../lib/knowledge/query-rewrite.js';

describe('knowledge query rewrite', () => {
  it('reads the JSON asked for, in a code fence or not, without repeats, the question itself or more than three', () => {
    const answer = JSON.stringify({
      queries: ['refund policy', 'Refund  policy', 'how do I get my money back?', '  ', 'returns', 'reimbursement', 'a fifth'],
    });
    expect(readRewrites(answer, 'How do I get my money back?')).to.deep.equal(['refund policy', 'returns', 'reimbursement']);
    expect(readRewrites('```json\n{"queries": ["refund policy"]}\n```', 'money back')).to.deep.equal(['refund policy']);
  });

  it('reads one rewording per line when the answer is not JSON, numbering and bullets dropped', () => {
    expect(readRewrites('1. refund policy\n- "returns window",\n\n2) reimbursement', 'q')).to.deep.equal([
      'refund policy',
      'returns window',
      'reimbursement',
    ]);
  });

  it('keeps a rewording to one line of at most 200 characters, and sends at most 500 characters of the question', () => {
    expect(readRewrites(JSON.stringify({ queries: [`a\nb ${'x'.repeat(300)}`] }), 'q')[0])
      .to.have.length(200)
      .and.match(/^a b x/);
    expect(rewriteMessages(`  ${'y'.repeat(600)}  `).at(-1)!.content).to.equal('y'.repeat(500));
  });
});
