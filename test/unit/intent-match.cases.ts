/** The intents and messages the intent matcher is tested on (and its default threshold chosen from). */
import type { IntentPhrases } from '../../lib/intents/intent-match.js';

export const ORDER_STATUS = 1;
export const CANCEL_ORDER = 2;
export const HUMAN = 3;
export const OPENING_HOURS = 4;
export const PRICING = 5;
export const GREETING = 6;
export const REFUND = 7;

export const INTENTS: IntentPhrases[] = [
  {
    id: ORDER_STATUS,
    name: 'order_status',
    phrases: ['Where is my order?', 'track my order', 'when will my package arrive', 'has my order shipped yet'],
  },
  { id: CANCEL_ORDER, name: 'Cancel order', phrases: ['I want to cancel my order', 'cancel the order I placed', 'stop my order'] },
  {
    id: HUMAN,
    name: 'talkToHuman',
    phrases: ['talk to a human', 'speak with an agent', 'can I talk to a real person', 'customer service representative'],
  },
  { id: OPENING_HOURS, name: 'Opening hours', phrases: ['What are your opening hours?', 'when do you open', 'what time do you close'] },
  { id: PRICING, name: 'Pricing', phrases: ['how much does it cost', 'what are your prices', 'price list'] },
  { id: GREETING, name: 'Greeting', phrases: ['hello', 'hi there', 'good morning'] },
  { id: REFUND, name: 'Refund', phrases: ['I want my money back', 'can I get a refund'] },
];

/** A message, and the intent it must match (null: none, "ambiguous": a tie between the listed intents). */
export interface MatchCase {
  message: string;
  expect: number | null | { ambiguous: number[] };
  why: string;
}

export const CASES: MatchCase[] = [
  // Exact phrases and their normalised forms.
  { message: 'Where is my order?', expect: ORDER_STATUS, why: 'exact phrase' },
  { message: "where's my order", expect: ORDER_STATUS, why: 'contraction' },
  { message: 'WHERE IS MY ORDER', expect: ORDER_STATUS, why: 'casing' },
  { message: 'hello', expect: GREETING, why: 'exact one-word phrase' },
  { message: 'Hi there!', expect: GREETING, why: 'punctuation' },
  { message: 'order status', expect: ORDER_STATUS, why: 'the intent name as a phrase' },
  // Paraphrases and word order.
  { message: 'where is my package', expect: ORDER_STATUS, why: 'paraphrase sharing the question' },
  { message: 'can you track my orders', expect: ORDER_STATUS, why: 'plural and extra words' },
  { message: 'my order, where is it?', expect: ORDER_STATUS, why: 'word order' },
  { message: 'has my order been shipped', expect: ORDER_STATUS, why: 'tense' },
  { message: 'please cancel my order', expect: CANCEL_ORDER, why: 'politeness' },
  { message: 'order cancellation', expect: CANCEL_ORDER, why: 'noun form' },
  { message: 'I would like to cancel the order', expect: CANCEL_ORDER, why: 'paraphrase' },
  { message: 'I need to talk to a person', expect: HUMAN, why: 'paraphrase' },
  { message: 'let me speak to an agent please', expect: HUMAN, why: 'paraphrase with extras' },
  { message: 'can i speak to a human', expect: HUMAN, why: 'words of two phrases' },
  { message: 'when are you open?', expect: OPENING_HOURS, why: 'paraphrase' },
  { message: 'what time do you open on saturday', expect: OPENING_HOURS, why: 'extra words' },
  { message: 'hours of opening', expect: OPENING_HOURS, why: 'word order' },
  { message: 'how much is it', expect: PRICING, why: 'paraphrase' },
  { message: 'what does it cost', expect: PRICING, why: 'paraphrase' },
  { message: 'pricing', expect: PRICING, why: 'intent name, another form' },
  { message: 'good morning!', expect: GREETING, why: 'phrase' },
  { message: 'I want a refund', expect: REFUND, why: 'paraphrase' },
  // Typos.
  { message: 'wher is my ordr', expect: ORDER_STATUS, why: 'two typos' },
  { message: 'i want to cancle my order', expect: CANCEL_ORDER, why: 'transposition' },
  { message: 'talk to a humn', expect: HUMAN, why: 'missing letter' },
  { message: 'wat are your oppening hours', expect: OPENING_HOURS, why: 'typos' },
  { message: 'whats the pricce list', expect: PRICING, why: 'typo and bare contraction' },
  { message: 'openinghours', expect: OPENING_HOURS, why: 'merged words' },
  // Casing and accents.
  { message: 'CANCEL MY ORDER', expect: CANCEL_ORDER, why: 'upper case' },
  { message: 'Héllo', expect: GREETING, why: 'accent' },
  { message: 'Whàt àre yoür öpening hoürs', expect: OPENING_HOURS, why: 'accents' },
  { message: 'ｔｒａｃｋ ｍｙ ｏｒｄｅｒ', expect: ORDER_STATUS, why: 'full-width characters (NFKD)' },
  // Long messages containing a phrase.
  {
    message: 'Hi, I bought a pair of shoes last week but they are too small, so I want to cancel my order before it ships',
    expect: CANCEL_ORDER,
    why: 'long message containing a phrase',
  },
  {
    message: 'I have been waiting for ten days now and nothing came. Where is my order? The number is 4411.',
    expect: ORDER_STATUS,
    why: 'long message containing a phrase',
  },
  { message: 'hello, can you tell me your opening hours?', expect: OPENING_HOURS, why: 'greeting plus a request: the request wins' },
  // Unrelated messages and near-misses.
  { message: 'what is the weather like tomorrow', expect: null, why: 'unrelated' },
  { message: 'my cat is sick', expect: null, why: 'unrelated' },
  { message: 'asdfgh qwerty', expect: null, why: 'gibberish' },
  { message: '???', expect: null, why: 'punctuation only' },
  { message: '', expect: null, why: 'empty' },
  { message: 'order', expect: { ambiguous: [ORDER_STATUS, CANCEL_ORDER] }, why: 'a word two intents share, and nothing else' },
  { message: 'I want to cancel my subscription', expect: null, why: 'cancel, but not an order' },
  { message: 'I want to order a pizza', expect: null, why: 'shares "order", asks something else' },
  { message: 'tell me a joke', expect: null, why: 'unrelated request' },
  { message: 'do you sell gift cards', expect: null, why: 'unrelated question' },
  { message: 'I love this shop', expect: null, why: 'unrelated statement' },
  { message: 'cancel my order and let me talk to a human', expect: { ambiguous: [CANCEL_ORDER, HUMAN] }, why: 'two requests at once' },
];
