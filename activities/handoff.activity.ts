/**
 * The handoff of a conversation to a person, as its workflow records it: the row's status (HANDED_OFF, back to
 * ACTIVE on resume), handoff count and wait, the CONVERSATION_HANDED_OFF event, the notice the visitor is told, and a user message recorded without a turn
 * while the agent is silent. Each is safe to run twice: keyed by the conversation's handoff number or the message key.
 */
import { appendMessage } from '../db/agents/conversations.service.js';
import { CONFIG_KIND } from '../db/agents/agent-defaults.js';
import { AgentConfig } from '../db/agents/agent-config.entity.js';
import { Conversation } from '../db/agents/conversation.entity.js';
import type { Orm } from '../db/orm.js';
import { conversationWorkflowId } from '../lib/runtime/conversation-contract.js';
import type { SentMessage } from '../lib/runtime/contract.js';
import { failsAfter } from './fails-after.js';
import { once } from '../db/node-effects/node-effects.js';
import { recordConversationEvent } from '../db/automations/events.service.js';
import type { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import type { EntityManager } from '@mikro-orm/postgresql';

/** What the visitor is told when a person takes over, unless `systemToolSettings.handoffMessage` says otherwise. */
export const DEFAULT_HANDOFF_MESSAGE = 'I am passing you to a person from our team. They will reply here shortly.';

interface ConversationIds {
  accountId: number;
  agentId: string;
  conversationId: string;
}

export interface HandoffOptions {
  /** Wakes the outbox dispatcher once a CONVERSATION_HANDED_OFF event is written. */
  outbox?: OutboxNotifier;
  /** PUBLIC_BASE_URL: the events link the conversation in the operator console; absent: no link. */
  publicBaseUrl?: string | null;
}

/** Who handed it off: the agent (the `handoff_to_human` tool, a SAY_AI's action) or a person (the API, a claim). */
export type HandoffBy = 'AI' | 'OPERATOR';

/** The conversation in the operator console (its hash route). */
export const consoleUrl = (publicBaseUrl: string, agentId: string, conversationId: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/console/#/c/${agentId}/${conversationId}`;

export function createHandoffActivities(orm: Orm, options: HandoffOptions = {}) {
  /** CONVERSATION_HANDED_OFF of the handoff just made, in its transaction. */
  const recordHandedOff = async (tx: EntityManager, input: ConversationIds & { by?: HandoffBy }) => {
    const row = await tx.findOneOrFail(Conversation, { id: input.conversationId }, { populate: ['agent'] });
    await recordConversationEvent(tx, input.accountId, {
      type: 'CONVERSATION_HANDED_OFF',
      agentId: input.agentId,
      conversationId: input.conversationId,
      details: {
        agentName: row.agent.name,
        channel: row.channel,
        contact: { name: row.contactName ?? null, email: row.contactEmail ?? null, externalId: row.visitorId ?? row.networkUserId ?? null },
        by: input.by ?? 'AI',
        handoffs: row.handoffs,
        consoleUrl: options.publicBaseUrl ? consoleUrl(options.publicBaseUrl, input.agentId, input.conversationId) : null,
      },
    });
  };
  return {
    /**
     * Hands the conversation to a person (its `handoff`-th handoff): status HANDED_OFF, one more handoff counted, its
     * wait started and CONVERSATION_HANDED_OFF written, once; then the notice to the visitor, once (an ended
     * conversation is left as it is, without notice or event).
     */
    handOffConversation: failsAfter(
      5,
      async (input: ConversationIds & { handoff: number; turn: number; temporalRunId: string; by?: HandoffBy }): Promise<SentMessage | null> => {
        const key = `${conversationWorkflowId(input.conversationId)}/handoff-${input.handoff}`;
        const handed = await once(orm.em, key, async (tx) => {
          const changed = await tx
            .getConnection()
            .execute<{ affectedRows: number }>(
              `update conversations set status = 'HANDED_OFF', handoffs = handoffs + 1, waiting_since = now() where id = ? and status <> 'ENDED'`,
              [input.conversationId],
              'run',
              tx.getTransactionContext(),
            );
          if (changed.affectedRows > 0) await recordHandedOff(tx, input);
          return changed.affectedRows > 0;
        });
        if (!handed) return null;
        options.outbox?.poke();
        const em = orm.em.fork();
        const setting = await em.findOne(AgentConfig, { agent: input.agentId, kind: CONFIG_KIND.setting }, { fields: ['values'] });
        const configured = (setting?.values.systemToolSettings as { handoffMessage?: unknown } | undefined)?.handoffMessage;
        const text = typeof configured === 'string' && configured.trim() ? configured.trim() : DEFAULT_HANDOFF_MESSAGE;
        return appendMessage(em, {
          accountId: input.accountId,
          conversationId: input.conversationId,
          key: `${key}/notice`,
          author: 'agent',
          text,
          turn: input.turn,
          nodeId: 'handoff_to_human',
          temporalRunId: input.temporalRunId,
        });
      },
    ),

    /**
     * Hands the conversation back to the agent after its `handoff`-th handoff: status ACTIVE (unless it ended
     * meanwhile), and nobody's claim any more.
     */
    resumeConversation: failsAfter(5, async (input: ConversationIds & { handoff: number }): Promise<void> => {
      await orm.em
        .fork()
        .nativeUpdate(Conversation, { id: input.conversationId, status: 'HANDED_OFF' }, { status: 'ACTIVE', claimedBy: null, claimedAt: null });
    }),

    /** A user message while a person has the conversation: into the transcript, once by its key, without a turn. */
    recordUserMessage: failsAfter(
      4,
      async (
        input: ConversationIds & { key: string; text: string; turn: number; temporalRunId: string; metadata?: SentMessage['metadata'] },
      ): Promise<void> => {
        await appendMessage(orm.em.fork(), {
          accountId: input.accountId,
          conversationId: input.conversationId,
          key: input.key,
          author: 'user',
          text: input.text,
          turn: input.turn,
          temporalRunId: input.temporalRunId,
          metadata: input.metadata ?? null,
        });
      },
    ),
  };
}
