/**
 * What a widget visitor sees of a transcript message: an operator's chosen name but not their user id, and none of the
 * AI's tool calls, which the account's people read in the console and the API.
 */
import { expect } from 'chai';
import { forVisitor } from '../../api/widget/widget-sessions.js';

describe('a message as a widget visitor sees it', () => {
  it("keeps the operator's name and hides their user id", () => {
    const message = { id: '1', metadata: { operator: { userId: 7, name: 'Ana' } } };
    expect(forVisitor(message).metadata).to.deep.equal({ operator: { userId: null, name: 'Ana' } });
  });

  it("hides the AI's tool calls, keeping the rest of the metadata", () => {
    const toolCalls = [{ name: 'search_knowledge', arguments: { query: 'refund policy' } }];
    expect(forVisitor({ id: '2', metadata: { toolCalls } }).metadata).to.equal(null);
    expect(forVisitor({ id: '3', metadata: { toolCalls, voice: true } }).metadata).to.deep.equal({ voice: true });
  });

  it("leaves a visitor's own page and user agent, and messages without metadata, as they are", () => {
    const own = { id: '4', metadata: { pageUrl: 'https://shop.example/cart', userAgent: 'Firefox' } };
    expect(forVisitor(own)).to.equal(own);
    const bare = { id: '5', metadata: null };
    expect(forVisitor(bare)).to.equal(bare);
  });
});
