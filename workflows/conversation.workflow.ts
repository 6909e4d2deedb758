/**
 * A conversation: one long-lived workflow, `conversation:<id>`, on the turns task queue. It holds where the
 * conversation stands (variables, a RESPONSE_AI waiting for an answer) and runs one turn per update — `begin` (the
 * greeting: the default flow from START), `message` (a user message) — one at a time, in arrival order. Each turn
 * walks the agent's live flows with the pure interpreter, every executed node an activity (`workflows/conversation/
 * turn.ts`). Between turns it keeps durable timers that a new message resets: CONVERSATION_IDLE after the channel's
 * idle time, and the end of a conversation left alone for a day (reason EXPIRED); it continues as new before its
 * history grows long. `end` closes it (CONVERSATION_ENDED).
 *
 * Handoff: a turn whose nodes call `handoff_to_human` (or the `handoff` update) hands the conversation to a person:
 * the row says HANDED_OFF and the visitor is told; from then on a user message is recorded in the transcript and
 * answered with no message (no flow, no default reply) until `resume` hands it back. A turn whose nodes call
 * `end_conversation` closes it (reason AGENT) once its messages are said. Both are workflow state first, and the row
 * follows through bookkeeping activities, so the workflow and the row agree.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ConversationAction, SentMessage } from '../lib/runtime/contract.js';
import {
  CONVERSATION_UPDATES,
  type ConversationInput,
  type ConversationState,
  type TurnReply,
  type UserMessage,
} from '../lib/runtime/conversation-contract.js';
import { untilTheDatabaseAnswers } from './until-the-database-answers.js';
import { TurnRunner, userMessageKey, type Turn } from './conversation/turn.js';

export const beginUpdate = defineUpdate<TurnReply>(CONVERSATION_UPDATES.begin);
export const messageUpdate = defineUpdate<TurnReply, [UserMessage]>(CONVERSATION_UPDATES.message);
export const endUpdate = defineUpdate<ConversationState, [{ reason?: string }]>(CONVERSATION_UPDATES.end);
export const handoffUpdate = defineUpdate<ConversationState>(CONVERSATION_UPDATES.handoff);
export const resumeUpdate = defineUpdate<ConversationState>(CONVERSATION_UPDATES.resume);
export const stateQuery = defineQuery<ConversationState>('state');

/**
 * The idle event and the end write only to agentry's database: they retry until it answers (`bookkeeping.ts`), so a
 * PostgreSQL outage fails no conversation.
 */
const bookkeeping = proxyLocalActivities<Activities>(untilTheDatabaseAnswers);

/** The patch of the deadline timer that messages no longer restart (two history events fewer a turn). */
export const ONE_TIMER_PATCH = 'conversation-one-deadline-timer';

/** Continue as new after this many turns in one run (and whenever Temporal suggests it), before history limits. */
const TURNS_PER_RUN = 200;

/** A conversation without a user message for this long ends by itself (reason EXPIRED), unless its input says otherwise. */
export const DEFAULT_EXPIRE_MINUTES = 24 * 60;

/** Replies kept for resent messages (the same `messageId` answers the same turn). */
const REMEMBERED_REPLIES = 20;

export async function conversation(input: ConversationInput): Promise<ConversationState> {
  const state: ConversationState = input.state ?? { turns: 0, variables: {}, waiting: null, ended: false, idleFired: false };
  const runner = new TurnRunner(input, state);
  const replies = new Map<string, TurnReply>();
  const firstTurn = state.turns;
  let greeting: TurnReply | undefined;
  let messagesSeen = 0;
  // Turns run one at a time, in the order their updates arrived: each takes a ticket and waits for its number.
  let tickets = 0;
  let serving = 0;
  const busy = () => serving !== tickets;
  const serialized = async <T>(work: () => Promise<T>): Promise<T> => {
    const ticket = tickets++;
    // Waiting only when another turn is being served: a condition costs a pass of the SDK's condition checks.
    if (serving !== ticket) await condition(() => serving === ticket);
    try {
      return await work();
    } finally {
      serving += 1;
    }
  };
  const open = () => {
    if (state.ended) throw new Error('The conversation has ended');
  };
  const close = async (reason: string) => {
    if (state.ended) return;
    state.ended = true;
    await bookkeeping.closeConversation({ ...ids(input), reason });
  };

  /** Hands the conversation to a person (once while handed off): the row follows, the visitor is told. */
  const handOff = async (turn: number): Promise<SentMessage[]> => {
    if (state.handedOff || state.ended) return [];
    state.handedOff = true;
    state.handoffs = (state.handoffs ?? 0) + 1;
    const notice = await bookkeeping.handOffConversation({ ...ids(input), handoff: state.handoffs, turn, temporalRunId: workflowInfo().runId });
    return notice ? [notice] : [];
  };
  /** What the turn's nodes asked (system tools, a SAY_AI's action), done after its messages; the reply gets the notice. */
  const settle = async ({ reply, actions }: Turn): Promise<TurnReply> => {
    const wants = (type: ConversationAction['type']) => actions.some((a) => a.type === type);
    let settled = reply;
    if (wants('HANDOFF')) settled = { ...reply, messages: [...reply.messages, ...(await handOff(reply.turn))] };
    if (wants('END')) await close('AGENT');
    return settled;
  };
  /** A user message while a person has the conversation: in the transcript, and no answer. */
  const recordOnly = async (turn: number, message: UserMessage): Promise<TurnReply> => {
    const info = workflowInfo();
    await bookkeeping.recordUserMessage({
      ...ids(input),
      key: userMessageKey(input.conversationId, turn, message),
      text: message.text,
      turn,
      temporalRunId: info.runId,
      ...(message.metadata ? { metadata: message.metadata } : {}),
    });
    return { conversationId: input.conversationId, turn, messages: [], temporal: { workflowId: info.workflowId, runId: info.runId } };
  };

  setHandler(beginUpdate, () => serialized(async () => (greeting ??= await settle(await runner.run(0)))), { validator: open });
  setHandler(
    messageUpdate,
    (message) =>
      serialized(async () => {
        const known = message.messageId ? replies.get(message.messageId) : undefined;
        if (known) return known;
        state.turns += 1;
        messagesSeen += 1;
        state.idleFired = false;
        state.lastMessageAt = Date.now();
        const reply = state.handedOff ? await recordOnly(state.turns, message) : await settle(await runner.run(state.turns, message));
        if (message.messageId) {
          replies.set(message.messageId, reply);
          if (replies.size > REMEMBERED_REPLIES) replies.delete(replies.keys().next().value!);
        }
        return reply;
      }),
    {
      validator: (message) => {
        open();
        if (typeof message?.text !== 'string' || !message.text.trim()) throw new Error('text must be a non-empty string');
      },
    },
  );
  setHandler(endUpdate, (request) =>
    serialized(async () => {
      await close(request?.reason ?? 'USER');
      return state;
    }),
  );
  setHandler(
    handoffUpdate,
    () =>
      serialized(async () => {
        await handOff(state.turns);
        return state;
      }),
    { validator: open },
  );
  setHandler(
    resumeUpdate,
    () =>
      serialized(async () => {
        if (state.handedOff && !state.ended) {
          state.handedOff = false;
          await bookkeeping.resumeConversation({ ...ids(input), handoff: state.handoffs ?? 0 });
        }
        return state;
      }),
    {
      validator: () => {
        open();
        if (!state.handedOff) throw new Error('The conversation is not handed off to a person');
      },
    },
  );
  setHandler(stateQuery, () => state);

  const shouldContinue = () => workflowInfo().continueAsNewSuggested || state.turns - firstTurn >= (input.turnsPerRun ?? TURNS_PER_RUN);
  // Between turns: the idle event after the channel's idle time, the end after DEFAULT_EXPIRE_MINUTES, both counted
  // from the last user message by durable timers. Before ONE_TIMER_PATCH a message restarted the timer; since, the
  // timer runs on and, when it fires, the deadlines as the last message moved them say whether to act or wait again
  // (a message re-arming the idle event, whose deadline comes before the timer's, still restarts it).
  state.lastMessageAt ??= Date.now();
  const oneTimer = patched(ONE_TIMER_PATCH);
  const deadlines = () => {
    const idleAt = input.idleMinutes && !state.idleFired ? state.lastMessageAt! + input.idleMinutes * 60_000 : Infinity;
    const expireAt = state.lastMessageAt! + (input.expireMinutes ?? DEFAULT_EXPIRE_MINUTES) * 60_000;
    return { idleAt, expireAt, next: Math.min(idleAt, expireAt) };
  };
  while (!state.ended) {
    const seen = messagesSeen;
    const timerAt = deadlines().next;
    const moved = () => (oneTimer ? deadlines().next < timerAt : messagesSeen !== seen);
    const woken = () => state.ended || moved() || (shouldContinue() && !busy());
    const stirred = await condition(woken, Math.max(1, timerAt - Date.now()));
    if (!stirred && !busy()) {
      const { idleAt, expireAt } = deadlines();
      if (Date.now() >= expireAt) await serialized(() => close('EXPIRED'));
      else if (Date.now() >= idleAt) {
        state.idleFired = true;
        await bookkeeping.conversationIdle({ ...ids(input), turns: state.turns, idleMinutes: input.idleMinutes! });
      }
    }
    if (!state.ended && shouldContinue()) {
      await condition(() => !busy() && allHandlersFinished());
      if (!state.ended) await continueAsNew<typeof conversation>({ ...input, state });
    }
  }
  await condition(allHandlersFinished);
  return state;
}

const ids = (input: ConversationInput) => ({ accountId: input.accountId, agentId: input.agentId, conversationId: input.conversationId });
