/**
 * A person's message on WhatsApp, Messenger or Instagram, on its way to its agent: the webhook's delivery is stored
 * (db/channels/inbound.service.ts) and its messages routed to their conversations at once by the API that took it
 * (`receiveNetworkDelivery`), or by the outbox's `channelInbound` (the routing activity, `acceptChannelMessage`) when
 * the API could not: both route with `routeChannelMessage`.
 *
 * Routing a message again (the API at once, then the outbox, or a retried activity) answers the same turn: it is a
 * message update whose id is the network's message id. The agent greets first only when its default flow says
 * something at START (`agentGreets`): then that turn runs before the person's first message. Media other than text
 * is recorded and answered with what the agent cannot read; a voice message is heard first (voice-transcription.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { appendMessage } from '../../db/agents/conversations.service.js';
import type { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import { acceptNetworkDelivery, settleRoutedAtOnce, type DeliveryChecks, type NetworkDelivery } from '../../db/channels/inbound.service.js';
import { agentGreets, openConversation } from '../../db/channels/network-conversations.service.js';
import type { Orm } from '../../db/orm.js';
import type { InboundMessageEvent } from '../../lib/channels/channel-contract.js';
import { conversationWorkflowId, type ConversationInput, type UserMessage } from '../../lib/runtime/conversation-contract.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { beginConversation, handMessageOver, startConversationWorkflow } from '../temporal/conversations.js';
import { isVoice, type ActivityAttempt, type VoiceTranscriber } from './voice-transcription.js';

/** What routing needs: the database, the conversations' Temporal client and queue, and, in the worker, the ears. */
export interface RoutingDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  /** Wakes the outbox dispatchers (an unreadable message's reply waits there). */
  outbox?: OutboxNotifier;
  /** Hears a voice message (its transcript), when an AI provider is configured; the API has none. */
  hear?: VoiceTranscriber;
}

/** What the agent says to a message it cannot read. */
export function unreadableReply(type: string): string {
  const what =
    { image: 'images', video: 'videos', audio: 'voice messages', file: 'files', sticker: 'stickers', location: 'locations' }[type] ??
    `${type} messages`;
  return `Sorry, I can't read ${what} yet. Could you write your message as text?`;
}

/**
 * A person's message to the open conversation of its agent (made, and its workflow started, when there is none).
 * Waits until the conversation accepted it. `activity`: the routing activity's attempt, which a voice message's
 * hearing gives up after.
 */
export async function routeChannelMessage(
  deps: RoutingDeps,
  event: InboundMessageEvent,
  activity?: ActivityAttempt,
): Promise<{ conversationId?: string; ignored?: string }> {
  // A voice message is heard where the AI provider is, the worker's routing activity: the API leaves it (and the
  // person's later messages, so none overtakes it) to the outbox's channelInbound.
  if (isVoice(event) && !deps.hear) throw new Error('a voice message is routed by the worker');
  const { temporal, taskQueue } = deps;
  const em = deps.orm.em.fork();
  const opened = await openConversation(em, event);
  if ('ignored' in opened) return { ignored: opened.ignored };
  const { conversation, agent, idleMinutes } = opened;
  const input: ConversationInput = {
    accountId: event.accountId,
    agentId: agent.id,
    conversationId: conversation.id,
    channel: event.channel,
    ...(idleMinutes ? { idleMinutes } : {}),
  };
  const heard = await deps.hear?.(event, activity); // A voice message's transcript, once per message id.
  const text = (heard?.text ?? event.text)?.trim();
  if (!text) {
    await startConversationWorkflow(temporal, taskQueue, input);
    await recordUnreadable(deps, em, event, conversation);
    return { conversationId: conversation.id };
  }
  if (conversation.turns === 0 && (await agentGreets(em, agent.id))) {
    // The greeting turn runs once per workflow run (`begin` answers it again when repeated).
    await beginConversation(temporal, taskQueue, input);
  }
  const message: UserMessage & { messageId: string } = { text, messageId: event.messageId, ...(heard ? { metadata: heard.metadata } : {}) };
  await handMessageOver(temporal, taskQueue, input, message);
  return { conversationId: conversation.id };
}

/** Media the agent cannot read: recorded in the transcript and, unless a person has the conversation, answered. */
async function recordUnreadable(
  deps: RoutingDeps,
  em: EntityManager,
  event: InboundMessageEvent,
  conversation: { id: string; turns: number; status: string },
): Promise<void> {
  const key = `${conversationWorkflowId(conversation.id)}/m-${event.messageId}`;
  const media = event.media ?? { type: 'unknown' };
  const recorded = `[${media.type}]${media.caption ? ` ${media.caption}` : ''}`;
  const turn = conversation.turns + 1;
  await appendMessage(em, { accountId: event.accountId, conversationId: conversation.id, key, author: 'user', text: recorded, turn });
  // A conversation a person has taken over (status HANDED_OFF) is theirs to answer.
  if (conversation.status === 'HANDED_OFF') return;
  const reply = unreadableReply(media.type);
  await appendMessage(em, {
    accountId: event.accountId,
    conversationId: conversation.id,
    key: `${key}/unreadable`,
    author: 'agent',
    text: reply,
    turn,
  });
  deps.outbox?.poke();
}

/**
 * Routes the messages of a delivery, each person's in order (parallel across people), after the answer: each routed
 * one's event is marked dispatched; at the first that fails, that person's messages from it on are left to the
 * outbox (their hold lifted), so none overtakes another.
 */
function routeAtOnce(deps: RoutingDeps, messages: (InboundMessageEvent & { eventId: string })[]): Promise<unknown> {
  const byPerson = new Map<string, typeof messages>();
  for (const m of messages) {
    const person = `${m.channel}:${m.connectionId}:${m.userId}`;
    byPerson.set(person, [...(byPerson.get(person) ?? []), m]);
  }
  return Promise.all(
    [...byPerson.values()].map(async (mine) => {
      let routed = true;
      for (const { eventId, ...event } of mine) {
        if (routed)
          routed = await routeChannelMessage(deps, event).then(
            () => true,
            () => false,
          );
        await settleRoutedAtOnce(deps.orm.em.fork(), eventId, routed).catch(() => undefined);
      }
      if (!routed) deps.outbox?.poke();
    }),
  );
}

/**
 * Meta's webhook delivery, as the API takes it: stored once every event is (its signature checked first), then, with
 * `routing`, its people's messages routed at once after the answer, the outbox's `channelInbound` holding back as the
 * safety net (`ROUTED_AT_ONCE_HOLD_SECONDS`). Answers how many events it stored.
 */
export async function receiveNetworkDelivery(
  em: EntityManager,
  secrets: SecretBox | null,
  routing: RoutingDeps | undefined,
  delivery: NetworkDelivery,
  admit?: DeliveryChecks['admit'],
): Promise<{ events: number }> {
  const accepted = await acceptNetworkDelivery(em, secrets, delivery, { admit, routeAtOnce: !!routing });
  if (routing && accepted.messages.length) void routeAtOnce(routing, accepted.messages);
  return { events: accepted.events };
}
