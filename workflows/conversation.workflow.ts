/**
 * A conversation: one long-lived workflow, `conversation:<id>`, on the turns task queue. It holds where the
 * conversation stands (variables, a RESPONSE_AI waiting for an answer) and runs one turn per update — `begin` (the
 * greeting: the default flow from START), `message` (a user message) — one at a time, in arrival order
 * (`conversation/handlers.ts`, `conversation/serial-queue.ts`). Each turn walks the agent's live flows with the pure
 * interpreter, every executed node an activity (`conversation/turn.ts`). Between turns it keeps a durable timer
 * for its deadlines, counted from the last message (`conversation/deadlines.ts`): CONVERSATION_IDLE after the
 * channel's idle time, and the end of a conversation left alone for a day (reason EXPIRED); it continues as new
 * before its history grows long. `end` closes it (CONVERSATION_ENDED).
 *
 * Handoff: a turn whose nodes call `handoff_to_human` (or the `handoff` update) hands the conversation to a person:
 * the row says HANDED_OFF and the visitor is told; from then on a user message is recorded in the transcript and
 * answered with no message (no flow, no default reply) until `resume` hands it back. A turn whose nodes call
 * `end_conversation` closes it (reason AGENT) once its messages are said. Both are workflow state first, and the row
 * follows through bookkeeping activities, so the workflow and the row agree (`conversation/lifecycle.ts`).
 */
import { allHandlersFinished, condition, continueAsNew, patched, workflowInfo } from '@temporalio/workflow';
import type { ConversationInput, ConversationState } from '../lib/runtime/conversation-contract.js';
import { Deadlines, ONE_TIMER_PATCH } from './conversation/deadlines.js';
import { setConversationHandlers } from './conversation/handlers.js';
import { Lifecycle } from './conversation/lifecycle.js';
import { SerialQueue } from './conversation/serial-queue.js';
import { TurnRunner } from './conversation/turn.js';

/** Continue as new after this many turns in one run (and whenever Temporal suggests it), before history limits. */
const TURNS_PER_RUN = 200;

export async function conversation(input: ConversationInput): Promise<ConversationState> {
  const state: ConversationState = input.state ?? { turns: 0, variables: {}, waiting: null, ended: false, idleFired: false };
  const firstTurn = state.turns;
  const queue = new SerialQueue(condition);
  const deadlines = new Deadlines(input, state, Date.now());
  const lifecycle = new Lifecycle(input, state);
  setConversationHandlers({ state, runner: new TurnRunner(input, state), queue, deadlines, lifecycle });

  const shouldContinue = () => workflowInfo().continueAsNewSuggested || state.turns - firstTurn >= (input.turnsPerRun ?? TURNS_PER_RUN);
  // Called after the handlers are set, as before the split: an update delivered with the start has then begun its turn.
  const oneTimer = patched(ONE_TIMER_PATCH);
  while (!state.ended) {
    const timer = deadlines.timer(oneTimer);
    const woken = () => state.ended || timer.moved() || (shouldContinue() && !queue.busy());
    const stirred = await condition(woken, Math.max(1, timer.at - Date.now()));
    // A timer that fires while an update is served does nothing: the next pass arms it again (the update may move it).
    const due = !stirred && !queue.busy() ? deadlines.due(Date.now()) : undefined;
    if (due === 'expire') await queue.run(() => lifecycle.close('EXPIRED'));
    if (due === 'idle') {
      deadlines.idled();
      await lifecycle.idle();
    }
    if (!state.ended && shouldContinue()) {
      await condition(() => !queue.busy() && allHandlersFinished());
      if (!state.ended) await continueAsNew<typeof conversation>({ ...input, state });
    }
  }
  await condition(allHandlersFinished);
  return state;
}
