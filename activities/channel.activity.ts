/**
 * The activities of the messaging networks (WhatsApp, Messenger, Instagram), each a call of the channel side in
 * integrations/messaging/ with the activity's attempt and cancellation:
 *
 * - `acceptChannelMessage`: routes a person's message to its agent's conversation (inbound-routing.ts), for the
 *   outbox's `channelInbound`, when the API that took it could not.
 * - `deliverPendingMessages`: sends a conversation's pending agent messages, for the outbox's `channelDelivery`
 *   (reply-delivery.ts).
 * - `recordChannelStatus`: sent, delivered, read, failed on the message the network names.
 */
import { Context } from '@temporalio/activity';
import { recordStatus } from '../db/channels/deliveries.service.js';
import { routeChannelMessage, type RoutingDeps } from '../integrations/messaging/inbound-routing.js';
import { deliverPending, type DeliveryDeps } from '../integrations/messaging/reply-delivery.js';
import type { InboundMessageEvent, InboundStatusEvent } from '../lib/channels/channel-contract.js';

export type ChannelActivityDeps = RoutingDeps & DeliveryDeps;

/** Attempts at finding the message a status is about before it is left alone (a status of a message agentry did not write). */
export const STATUS_ATTEMPTS = 6;

/** This activity's attempt and cancellation. */
const running = () => {
  const context = Context.current();
  return { attempt: context.info.attempt, signal: context.cancellationSignal };
};

export function createChannelActivities(deps: ChannelActivityDeps) {
  return {
    acceptChannelMessage: (event: InboundMessageEvent) => routeChannelMessage(deps, event, running()),

    /** A pass that retries (the whole activity) from the first message still pending. */
    deliverPendingMessages: (input: { conversationId: string }) => deliverPending(deps, input.conversationId, running()),

    async recordChannelStatus(event: InboundStatusEvent): Promise<{ found: number }> {
      const { found, expected } = await recordStatus(deps.orm.em.fork(), event);
      // The send's answer may not be recorded yet; a status of a message agentry did not send is left alone in the end.
      if (found < expected && running().attempt < STATUS_ATTEMPTS) throw new Error(`${expected - found} of the status's messages are not known yet`);
      return { found };
    },
  };
}

export type ChannelActivities = ReturnType<typeof createChannelActivities>;
