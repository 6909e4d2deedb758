import { expect } from 'chai';
import type { ConversationState } from '../../lib/runtime/conversation-contract.js';
import { DEFAULT_EXPIRE_MINUTES, Deadlines } from '../../workflows/conversation/deadlines.js';

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 27, 12);

const fresh = (): ConversationState => ({ turns: 0, variables: {}, waiting: null, ended: false, idleFired: false });

describe('conversation: deadlines between turns', () => {
  it('counts from the start: the idle event after idleMinutes, the end after a day by default', () => {
    const state = fresh();
    const deadlines = new Deadlines({ idleMinutes: 10 }, state, START);
    expect(state.lastMessageAt).to.equal(START);
    expect(deadlines.idleAt).to.equal(START + 10 * MINUTE);
    expect(deadlines.expireAt).to.equal(START + DEFAULT_EXPIRE_MINUTES * MINUTE);
    expect(DEFAULT_EXPIRE_MINUTES).to.equal(24 * 60);
    expect(deadlines.due(START + 10 * MINUTE - 1)).to.equal(undefined);
    expect(deadlines.due(START + 10 * MINUTE)).to.equal('idle');
  });

  it('keeps the last message time a conversation carried over (continue-as-new)', () => {
    const state = { ...fresh(), lastMessageAt: START - 5 * MINUTE };
    const deadlines = new Deadlines({ idleMinutes: 10 }, state, START);
    expect(deadlines.idleAt).to.equal(START + 5 * MINUTE);
  });

  it('fires the idle event once until the next message, which counts both deadlines from itself', () => {
    const state = fresh();
    const deadlines = new Deadlines({ idleMinutes: 10, expireMinutes: 60 }, state, START);
    deadlines.idled();
    expect(state.idleFired).to.equal(true);
    expect(deadlines.due(START + 30 * MINUTE)).to.equal(undefined);
    expect(deadlines.timer(true).at).to.equal(START + 60 * MINUTE);
    deadlines.message(START + 30 * MINUTE);
    expect(state).to.include({ idleFired: false, lastMessageAt: START + 30 * MINUTE });
    expect(deadlines.due(START + 40 * MINUTE)).to.equal('idle');
    expect(deadlines.expireAt).to.equal(START + 90 * MINUTE);
  });

  it('ends the conversation (expire) before the idle event when both are due, and never idles without idleMinutes', () => {
    const deadlines = new Deadlines({ idleMinutes: 10, expireMinutes: 5 }, fresh(), START);
    expect(deadlines.due(START + 10 * MINUTE)).to.equal('expire');
    const quiet = new Deadlines({}, fresh(), START);
    expect(quiet.idleAt).to.equal(Infinity);
    expect(quiet.due(START + DEFAULT_EXPIRE_MINUTES * MINUTE - 1)).to.equal(undefined);
    expect(quiet.due(START + DEFAULT_EXPIRE_MINUTES * MINUTE)).to.equal('expire');
  });

  it('one timer (ONE_TIMER_PATCH): a message moves it only when it re-arms an idle event due before the timer', () => {
    const state = fresh();
    const deadlines = new Deadlines({ idleMinutes: 10, expireMinutes: 60 }, state, START);
    const timer = deadlines.timer(true);
    expect(timer.at).to.equal(START + 10 * MINUTE);
    deadlines.message(START + 5 * MINUTE);
    expect(timer.moved()).to.equal(false);
    // Fired at its time, the timer finds the idle event moved on: nothing is due, and the next timer waits for it.
    expect(deadlines.due(timer.at)).to.equal(undefined);
    expect(deadlines.timer(true).at).to.equal(START + 15 * MINUTE);

    deadlines.idled();
    const untilExpiry = deadlines.timer(true);
    expect(untilExpiry.at).to.equal(START + 65 * MINUTE);
    deadlines.message(START + 20 * MINUTE);
    expect(untilExpiry.moved()).to.equal(true);
  });

  it('before ONE_TIMER_PATCH: any message moves the timer (the workflow restarts it)', () => {
    const deadlines = new Deadlines({ idleMinutes: 10 }, fresh(), START);
    const timer = deadlines.timer(false);
    expect(timer.moved()).to.equal(false);
    deadlines.message(START + MINUTE);
    expect(timer.moved()).to.equal(true);
  });
});
