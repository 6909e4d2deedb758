/**
 * The activities of the messaging networks (WhatsApp, Messenger, Instagram).
 *
 * - `acceptChannelMessage`: a person's message reaches the open conversation of its agent (made, and its workflow
 *   started, when there is none) as a message update, with the network's message id as `messageId` and update id, so
 *   a retried activity answers the same turn (the API routes most messages itself with `routeChannelMessage`).
 *   The agent greets first only when its default flow says something at START (`agentGreets`): then that turn runs
 *   before the person's first message. Media other than text is recorded and answered with what the agent cannot read.
 * - `deliverPendingMessages`: sends a conversation's pending agent messages in the order they were written, each
 *   once (a message recorded as sent is not sent again); rate limits and 5xx are retried with backoff (the whole
 *   activity, from the first message still pending), a closed 24-hour window and other refusals fail the message.
 * - `deliverAtOnce` (not an activity: the node activities' after-node step, once a turn's node said something): the
 *   same, at once, without retrying; what it could not send goes to the outbox's `channelDelivery`.
 * - `recordChannelStatus`: sent, delivered, read, failed on the message the network names.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { appendMessage } from '../db/agents/conversations.service.js';
import { agentGreets, openConversation } from '../db/channels/network-conversations.service.js';
import {
  markFailed,
  markSent,
  pendingMessages,
  recordStatus,
  settleHeldDeliveries,
  stillPending,
  type PendingMessage,
} from '../db/channels/deliveries.service.js';
import { connectionFor } from '../db/channels/network-accounts.service.js';
import type { Orm } from '../db/orm.js';
import type { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import { sendText, type SendTarget } from '../integrations/messaging/meta-send-api.js';
import { sendTargetOf } from '../integrations/messaging/send-target.js';
import type { MessagingConfig } from '../integrations/messaging/cloud-api-messaging.js';
import { deliveryWorkflowId, type InboundMessageEvent, type InboundStatusEvent } from '../lib/channels/channel-contract.js';
import { conversationWorkflowId, type ConversationInput, type UserMessage } from '../lib/runtime/conversation-contract.js';
import { beginConversation, handMessageOver, startConversationWorkflow } from '../integrations/temporal/conversations.js';
import type { ExecuteNodeInput, NodeOutcome } from '../lib/runtime/contract.js';
import type { SecretBox } from '../lib/secret-box.js';
import { isVoice, type VoiceTranscriber } from './channel-voice.js';

export interface ChannelActivityDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  secrets: SecretBox | null;
  /** The worker's MESSAGING_API_URL and token: what a number without its own Cloud API settings sends through. */
  messaging: MessagingConfig | null;
  outbox?: OutboxNotifier;
  httpTimeoutMs: number;
  /** Hears a voice message (its transcript), when an AI provider is configured: activities/channel-voice.ts. */
  hear?: VoiceTranscriber;
}

/** Attempts at sending one message before it is recorded as failed (about 20 minutes with the workflow's backoff). */
export const SEND_ATTEMPTS = 25;
/** Attempts at finding the message a status is about before it is left alone (a status of a message agentry did not write). */
export const STATUS_ATTEMPTS = 6;

/** What the agent says to a message it cannot read. */
export function unreadableReply(type: string): string {
  const what =
    { image: 'images', video: 'videos', audio: 'voice messages', file: 'files', sticker: 'stickers', location: 'locations' }[type] ??
    `${type} messages`;
  return `Sorry, I can't read ${what} yet. Could you write your message as text?`;
}

const attempt = () => {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
};

/**
 * A person's message to the open conversation of its agent (made, and its workflow started, when there is none), as
 * a message update whose id is the network's message id: routing it again (the API at once, then the outbox's
 * `channelInbound`, or a retried activity) answers the same turn. Waits until the conversation accepted it.
 */
export async function routeChannelMessage(
  deps: Pick<ChannelActivityDeps, 'orm' | 'temporal' | 'taskQueue' | 'outbox' | 'hear'>,
  event: InboundMessageEvent,
): Promise<{ conversationId?: string; ignored?: string }> {
  // A voice message is heard where the AI provider is, the worker's routing activity: the API leaves it (and the
  // person's later messages, so none overtakes it) to the outbox's channelInbound.
  if (isVoice(event) && !deps.hear) throw new Error('a voice message is routed by the worker');
  const { orm, temporal, taskQueue } = deps;
  const em = orm.em.fork();
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
  const heard = await deps.hear?.(event); // A voice message's transcript, once per message id (channel-voice.ts).
  const text = (heard?.text ?? event.text)?.trim();
  if (!text) {
    await startConversationWorkflow(temporal, taskQueue, input);
    const key = `${conversationWorkflowId(conversation.id)}/m-${event.messageId}`;
    const media = event.media ?? { type: 'unknown' };
    const recorded = `[${media.type}]${media.caption ? ` ${media.caption}` : ''}`;
    await appendMessage(em, {
      accountId: event.accountId,
      conversationId: conversation.id,
      key,
      author: 'user',
      text: recorded,
      turn: conversation.turns + 1,
    });
    // A conversation a person has taken over (status HANDED_OFF) is theirs to answer.
    if ((conversation.status as string) !== 'HANDED_OFF') {
      const reply = unreadableReply(media.type);
      await appendMessage(em, {
        accountId: event.accountId,
        conversationId: conversation.id,
        key: `${key}/unreadable`,
        author: 'agent',
        text: reply,
        turn: conversation.turns + 1,
      });
      deps.outbox?.poke();
    }
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

export function createChannelActivities(deps: ChannelActivityDeps) {
  const { orm } = deps;

  /** The Send API a conversation's replies go through: the connected account's URL and token. */
  async function targetOf(message: PendingMessage): Promise<{ target: SendTarget } | { error: string }> {
    const connection = await connectionFor(orm.em.fork(), message.accountId, message.channel, message.networkAccountId);
    if (!connection) return { error: `${message.channel} ${message.networkAccountId} is no longer connected` };
    const found = sendTargetOf(connection, deps.secrets, deps.messaging);
    if ('missing' in found)
      return {
        error:
          found.missing === 'undecryptable'
            ? 'The access token cannot be decrypted: the worker needs the SETTINGS_ENCRYPTION_KEY it was stored with'
            : `No access token to send through ${message.networkAccountId}: set it with npm run admin -- channel-settings`,
      };
    return {
      target: {
        channel: message.channel,
        baseUrl: found.baseUrl,
        token: found.token,
        networkId: message.networkAccountId,
        to: message.networkUserId,
      },
    };
  }

  /**
   * Sends a conversation's pending agent messages in the order they were written, each once. Each message is sent in
   * a transaction of its own holding the conversation's advisory lock (a try-lock: a pass that finds another at work
   * answers null at once) and recorded in it, after checking it is still pending: two passes never send one message,
   * and a pass holds one connection, never waiting for another. A failure to retry throws when `retry` (from the
   * first message still pending, so the later ones never overtake it), else ends the pass there.
   */
  async function deliverPass(conversationId: string, retry: boolean): Promise<{ sent: string[]; failed: number; done: string[] } | null> {
    const signal = (() => {
      try {
        return Context.current().cancellationSignal;
      } catch {
        return new AbortController().signal;
      }
    })();
    const pass = { sent: [] as string[], failed: 0, done: [] as string[] };
    const pending = await pendingMessages(orm.em.fork(), conversationId);
    if (!pending.length) return pass;
    const found = await targetOf(pending[0]!);
    for (const message of pending) {
      const step = await orm.em.getKnex().transaction(async (trx) => {
        const locked = await trx.raw(`select pg_try_advisory_xact_lock(hashtext(?)) as ok`, [deliveryWorkflowId(conversationId)]);
        if (!locked.rows[0].ok) return 'busy' as const;
        if (!(await stillPending(trx, message.id))) return 'gone' as const;
        if ('error' in found) {
          await markFailed(trx, message.id, found.error);
          return 'failed' as const;
        }
        const result = await sendText(found.target, message.text, signal, deps.httpTimeoutMs);
        if (result.ok) {
          await markSent(trx, message.id, result.externalId);
          return 'sent' as const;
        }
        if (result.failure.kind === 'retry' && (!retry || attempt() < SEND_ATTEMPTS)) return result.failure.message;
        await markFailed(trx, message.id, result.failure.message);
        return 'failed' as const;
      });
      if (step === 'busy') return null;
      if (step === 'gone') continue;
      if (step === 'sent') pass.sent.push(message.id);
      else if (step === 'failed') pass.failed += 1;
      else if (retry) throw new Error(`Sending message ${message.id} failed, retrying: ${step}`);
      else break;
      pass.done.push(message.id);
    }
    return pass;
  }

  return {
    acceptChannelMessage: (event: InboundMessageEvent) => routeChannelMessage(deps, event),

    /** The outbox's `channelDelivery`: a pass that retries (the whole activity) from the first message still pending. */
    async deliverPendingMessages(input: { conversationId: string }): Promise<{ sent: number; failed: number }> {
      const pass = await deliverPass(input.conversationId, true);
      // Another pass is sending the conversation's messages: this one tries again after it.
      if (!pass) throw new Error(`Messages of conversation ${input.conversationId} are being sent by another pass`);
      return { sent: pass.sent.length, failed: pass.failed };
    },

    /**
     * The node activities' after-node step: a turn's node said something, so its messages leave at once from its
     * activity, in order, each once, when no other pass is sending (else, or at a failure to retry, their held
     * CHANNEL_DELIVERY events go to the outbox now).
     */
    async deliverAtOnce(input: ExecuteNodeInput, outcome: NodeOutcome): Promise<void> {
      if (!input.conversation || !outcome.messages?.some((m) => m.delivery?.status === 'pending')) return;
      const { conversationId } = input.conversation;
      let done: string[] = [];
      try {
        const pass = await deliverPass(conversationId, false);
        if (pass) done = pass.done;
      } catch {
        // The outbox's channelDelivery sends them (and retries what failed).
      } finally {
        await settleHeldDeliveries(orm.em.fork(), conversationId, done).catch(() => undefined);
        deps.outbox?.poke();
      }
    },

    async recordChannelStatus(event: InboundStatusEvent): Promise<{ found: number }> {
      const { found, expected } = await recordStatus(orm.em.fork(), event);
      // The send's answer may not be recorded yet; a status of a message agentry did not send is left alone in the end.
      if (found < expected && attempt() < STATUS_ATTEMPTS) throw new Error(`${expected - found} of the status's messages are not known yet`);
      return { found };
    },
  };
}

export type ChannelActivities = ReturnType<typeof createChannelActivities>;
