/**
 * A conversation's deadlines between turns, counted from the last user message (or the start): the idle event
 * (CONVERSATION_IDLE) after the channel's `idleMinutes`, once until the next message, and the end (reason EXPIRED)
 * after `expireMinutes`, a day by default. The workflow waits for them on one durable timer. Pure and deterministic:
 * times come in as arguments (the workflow's `Date.now()`), so it is unit-tested without a workflow.
 */
import type { ConversationInput, ConversationState } from '../../lib/runtime/conversation-contract.js';

/** A conversation without a user message for this long ends by itself (reason EXPIRED), unless its input says otherwise. */
export const DEFAULT_EXPIRE_MINUTES = 24 * 60;

/** The patch of the deadline timer that messages no longer restart (two history events fewer a turn). */
export const ONE_TIMER_PATCH = 'conversation-one-deadline-timer';

/** What a fired timer finds due: the end, the idle event, or nothing (a deadline moved on meanwhile). */
export type Due = 'expire' | 'idle' | undefined;

/** A wait for the next deadline: when its timer fires, and whether the wait should end early to wait again. */
export interface DeadlineTimer {
  at: number;
  moved(): boolean;
}

export class Deadlines {
  /** User messages in this run: before `ONE_TIMER_PATCH`, each one restarted the timer. */
  private messages = 0;

  /** `state` is the workflow's own (deadlines read and write it); a conversation without a message yet counts from `now`. */
  constructor(
    private readonly input: Pick<ConversationInput, 'idleMinutes' | 'expireMinutes'>,
    private readonly state: ConversationState,
    now: number,
  ) {
    state.lastMessageAt ??= now;
  }

  /** A user message at `now`: both deadlines count from it, and the idle event may fire again. */
  message(now: number): void {
    this.messages += 1;
    this.state.idleFired = false;
    this.state.lastMessageAt = now;
  }

  /** The idle event has fired: it waits for the next message. */
  idled(): void {
    this.state.idleFired = true;
  }

  /** When the idle event is due (never without `idleMinutes`, or once it has fired). */
  get idleAt(): number {
    const minutes = this.input.idleMinutes;
    return minutes && !this.state.idleFired ? this.state.lastMessageAt! + minutes * 60_000 : Infinity;
  }

  get expireAt(): number {
    return this.state.lastMessageAt! + (this.input.expireMinutes ?? DEFAULT_EXPIRE_MINUTES) * 60_000;
  }

  /**
   * The timer for the next deadline. Before `ONE_TIMER_PATCH` (`oneTimer` false) any message moved it, and the
   * workflow restarted it; since, a message moves it only when the next deadline comes earlier than the timer (the
   * idle event re-armed): a later one is found not due when the timer fires, and waited for again.
   */
  timer(oneTimer: boolean): DeadlineTimer {
    const seen = this.messages;
    const at = this.next();
    return { at, moved: () => (oneTimer ? this.next() < at : this.messages !== seen) };
  }

  /** What is due at `now`; the end before the idle event. */
  due(now: number): Due {
    if (now >= this.expireAt) return 'expire';
    if (now >= this.idleAt) return 'idle';
    return undefined;
  }

  private next(): number {
    return Math.min(this.idleAt, this.expireAt);
  }
}
