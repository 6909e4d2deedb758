/**
 * The workflows of the messaging networks, started from the outbox (worker/direct-starts.ts), on the turns queue:
 *
 * - `channelInbound`, `channel-in:<channel>:<connection>:<network message id>`: routes a person's message to its
 *   agent's conversation when the API that took it could not (its outbox event's hold ran out or was lifted).
 * - `channelStatus`: records a status the network reported on the agent's message.
 * - `channelDelivery`, `channel-out:<conversationId>`: one per conversation, signalled (with start) by the outbox for
 *   agent messages written outside turns, or a turn's its node could not send itself: it sends the pending messages one pass at a time, so they leave in the order they were written,
 *   and lingers a little for the next ones before it completes (a later message starts it again).
 */
import { condition, continueAsNew, defineSignal, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DELIVERY_SIGNAL, type InboundMessageEvent, type InboundStatusEvent } from '../lib/channels/channel-contract.js';

/**
 * Routing waits for the conversation workflow to accept the message: a regular activity, not a local one, whose
 * workflow task would hold a slot of the turns queue's workers while the conversation needs one (a burst of people
 * writing at once would starve the conversations of the slots their own routing holds).
 */
const routing = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 12 },
});

/** A status may arrive before the send's answer is recorded: a few tries, a second apart and more. */
const statuses = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** Sending retries rate limits and 5xx with backoff; the activity fails a message for good after SEND_ATTEMPTS. */
const sending = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const deliverSignal = defineSignal<[{ messageId?: string }?]>(DELIVERY_SIGNAL);

export async function channelInbound(event: InboundMessageEvent): Promise<{ conversationId?: string; ignored?: string }> {
  return routing.acceptChannelMessage(event);
}

export async function channelStatus(event: InboundStatusEvent): Promise<{ found: number }> {
  return statuses.recordChannelStatus(event);
}

/** How long a conversation's delivery workflow waits for another message before it completes. */
const LINGER = '20 seconds';
/** Passes per run before it continues as new. */
const PASSES_PER_RUN = 500;

export async function channelDelivery(input: { accountId: number; conversationId: string }): Promise<void> {
  // Every run begins with a pass: the signal that started it, or messages signalled before it continued as new.
  let wakes = 1;
  setHandler(deliverSignal, () => {
    wakes += 1;
  });
  for (let passes = 0; ; passes += 1) {
    if (!(await condition(() => wakes > 0, LINGER))) return;
    wakes = 0;
    await sending.deliverPendingMessages({ conversationId: input.conversationId });
    if (passes + 1 >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof channelDelivery>(input);
  }
}
