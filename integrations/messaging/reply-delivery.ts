/**
 * An agent's messages on their way to a person on WhatsApp, Messenger or Instagram, through the network's Send API
 * (meta-send-api.ts), in the order they were written, each once (a message recorded as sent is not sent again):
 *
 * - `deliverPending`, the outbox's `channelDelivery` (its activity `deliverPendingMessages`): rate limits and 5xx
 *   are retried with backoff (the whole activity, from the first message still pending), a closed 24-hour window and
 *   other refusals fail the message.
 * - `deliverSaidAtOnce`, once a turn's node said something (the node activity's after-node step): the same, at once,
 *   without retrying; what it could not send goes to the outbox's `channelDelivery`.
 */
import type { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import {
  markFailed,
  markSent,
  pendingMessages,
  settleHeldDeliveries,
  stillPending,
  type PendingMessage,
} from '../../db/channels/deliveries.service.js';
import { connectionFor } from '../../db/channels/network-accounts.service.js';
import type { Orm } from '../../db/orm.js';
import { deliveryWorkflowId } from '../../lib/channels/channel-contract.js';
import type { ExecuteNodeInput, NodeOutcome } from '../../lib/runtime/contract.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { MessagingConfig } from './cloud-api-messaging.js';
import { sendText, type SendTarget } from './meta-send-api.js';
import { sendTargetOf } from './send-target.js';

export interface DeliveryDeps {
  orm: Orm;
  secrets: SecretBox | null;
  /** The worker's MESSAGING_API_URL and token: what a number without its own Cloud API settings sends through. */
  messaging: MessagingConfig | null;
  /** Wakes the outbox dispatchers once held deliveries are released. */
  outbox?: OutboxNotifier;
  httpTimeoutMs: number;
}

/** Attempts at sending one message before it is recorded as failed (about 20 minutes with the workflow's backoff). */
export const SEND_ATTEMPTS = 25;

/** The Send API a conversation's replies go through: the connected account's URL and token. */
async function targetOf(deps: DeliveryDeps, message: PendingMessage): Promise<{ target: SendTarget } | { error: string }> {
  const connection = await connectionFor(deps.orm.em.fork(), message.accountId, message.channel, message.networkAccountId);
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
    target: { channel: message.channel, baseUrl: found.baseUrl, token: found.token, networkId: message.networkAccountId, to: message.networkUserId },
  };
}

/** How a pass goes at a failure to retry: `attempt` of the retrying activity, or not retried (`attempt` null). */
interface Pass {
  attempt: number | null;
  signal: AbortSignal;
}

/**
 * Sends a conversation's pending agent messages in the order they were written, each once. Each message is sent in
 * a transaction of its own holding the conversation's advisory lock (a try-lock: a pass that finds another at work
 * answers null at once) and recorded in it, after checking it is still pending: two passes never send one message,
 * and a pass holds one connection, never waiting for another. A failure to retry throws when retried (from the
 * first message still pending, so the later ones never overtake it), else ends the pass there.
 */
async function deliverPass(
  deps: DeliveryDeps,
  conversationId: string,
  { attempt, signal }: Pass,
): Promise<{ sent: string[]; failed: number; done: string[] } | null> {
  const { orm } = deps;
  const pass = { sent: [] as string[], failed: 0, done: [] as string[] };
  const pending = await pendingMessages(orm.em.fork(), conversationId);
  if (!pending.length) return pass;
  const found = await targetOf(deps, pending[0]!);
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
      if (result.failure.kind === 'retry' && (attempt === null || attempt < SEND_ATTEMPTS)) return result.failure.message;
      await markFailed(trx, message.id, result.failure.message);
      return 'failed' as const;
    });
    if (step === 'busy') return null;
    if (step === 'gone') continue;
    if (step === 'sent') pass.sent.push(message.id);
    else if (step === 'failed') pass.failed += 1;
    else if (attempt !== null) throw new Error(`Sending message ${message.id} failed, retrying: ${step}`);
    else break;
    pass.done.push(message.id);
  }
  return pass;
}

/** A pass that retries (its activity, `attempt`) from the first message still pending. */
export async function deliverPending(
  deps: DeliveryDeps,
  conversationId: string,
  activity: { attempt: number; signal: AbortSignal },
): Promise<{ sent: number; failed: number }> {
  const pass = await deliverPass(deps, conversationId, activity);
  // Another pass is sending the conversation's messages: this one tries again after it.
  if (!pass) throw new Error(`Messages of conversation ${conversationId} are being sent by another pass`);
  return { sent: pass.sent.length, failed: pass.failed };
}

/**
 * The after-node step of the worker's node activities (activities/index.ts): a turn's node said something on a
 * messaging network, so its messages leave at once from its activity, in order, each once, when no other pass is
 * sending (else, or at a failure to retry, their held CHANNEL_DELIVERY events go to the outbox now). Never throws:
 * what it could not do, the outbox's `channelDelivery` does.
 */
export function deliverSaidAtOnce(deps: DeliveryDeps) {
  return async (input: ExecuteNodeInput, outcome: NodeOutcome, signal: AbortSignal): Promise<void> => {
    if (!input.conversation || !outcome.messages?.some((m) => m.delivery?.status === 'pending')) return;
    const { conversationId } = input.conversation;
    let done: string[] = [];
    try {
      const pass = await deliverPass(deps, conversationId, { attempt: null, signal });
      if (pass) done = pass.done;
    } catch {
      // The outbox's channelDelivery sends them (and retries what failed).
    } finally {
      await settleHeldDeliveries(deps.orm.em.fork(), conversationId, done).catch(() => undefined);
      deps.outbox?.poke();
    }
  };
}
