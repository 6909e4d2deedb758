/**
 * The conversation workflow's updates and query. Every update runs through the serial queue, so turns and the
 * changes between them happen one at a time in arrival order; validators refuse an update before it is accepted
 * (a message to an ended conversation, an empty text, a resume of a conversation no person has).
 */
import { defineQuery, defineUpdate, setHandler } from '@temporalio/workflow';
import { CONVERSATION_UPDATES, type ConversationState, type TurnReply, type UserMessage } from '../../lib/runtime/conversation-contract.js';
import type { Deadlines } from './deadlines.js';
import type { Lifecycle } from './lifecycle.js';
import type { SerialQueue } from './serial-queue.js';
import type { TurnRunner } from './turn.js';

export const beginUpdate = defineUpdate<TurnReply>(CONVERSATION_UPDATES.begin);
export const messageUpdate = defineUpdate<TurnReply, [UserMessage]>(CONVERSATION_UPDATES.message);
export const endUpdate = defineUpdate<ConversationState, [{ reason?: string }]>(CONVERSATION_UPDATES.end);
export const handoffUpdate = defineUpdate<ConversationState>(CONVERSATION_UPDATES.handoff);
export const resumeUpdate = defineUpdate<ConversationState>(CONVERSATION_UPDATES.resume);
export const stateQuery = defineQuery<ConversationState>('state');

/** Replies kept for resent messages (the same `messageId` answers the same turn). */
const REMEMBERED_REPLIES = 20;

/** The parts of a conversation run its handlers work with. */
export interface ConversationParts {
  state: ConversationState;
  runner: TurnRunner;
  queue: SerialQueue;
  deadlines: Deadlines;
  lifecycle: Lifecycle;
}

/** Sets the handlers of `begin`, `message`, `end`, `handoff`, `resume` and the `state` query. */
export function setConversationHandlers({ state, runner, queue, deadlines, lifecycle }: ConversationParts): void {
  const replies = new Map<string, TurnReply>();
  let greeting: TurnReply | undefined;
  const open = () => {
    if (state.ended) throw new Error('The conversation has ended');
  };

  setHandler(beginUpdate, () => queue.run(async () => (greeting ??= await lifecycle.settle(await runner.run(0)))), { validator: open });
  setHandler(
    messageUpdate,
    (message) =>
      queue.run(async () => {
        const known = message.messageId ? replies.get(message.messageId) : undefined;
        if (known) return known;
        state.turns += 1;
        deadlines.message(Date.now());
        const reply = state.handedOff
          ? await lifecycle.recordOnly(state.turns, message)
          : await lifecycle.settle(await runner.run(state.turns, message));
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
    queue.run(async () => {
      await lifecycle.close(request?.reason ?? 'USER');
      return state;
    }),
  );
  const answeringState = (change: () => Promise<unknown>) => () =>
    queue.run(async () => {
      await change();
      return state;
    });
  setHandler(
    handoffUpdate,
    answeringState(() => lifecycle.handOff(state.turns, 'OPERATOR')),
    { validator: open },
  );
  setHandler(
    resumeUpdate,
    answeringState(() => lifecycle.resume()),
    {
      validator: () => {
        open();
        if (!state.handedOff) throw new Error('The conversation is not handed off to a person');
      },
    },
  );
  setHandler(stateQuery, () => state);
}
