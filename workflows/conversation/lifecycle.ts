/**
 * Where a conversation stands — open or ended, with the agent or with a person — as its workflow changes it. The
 * workflow state changes first and the row follows through bookkeeping activities, so the two agree: ending it
 * (CONVERSATION_ENDED), handing it to a person and back, recording a user message while a person has it, and the idle
 * event. These write only to agentry's database: they retry until it answers (`../until-the-database-answers.ts`), so a PostgreSQL
 * outage fails no conversation.
 */
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ConversationAction, SentMessage } from '../../lib/runtime/contract.js';
import type { ConversationInput, ConversationState, TurnReply, UserMessage } from '../../lib/runtime/conversation-contract.js';
import { untilTheDatabaseAnswers } from '../until-the-database-answers.js';
import { userMessageKey, type Turn } from './turn.js';

const bookkeeping = proxyLocalActivities<Activities>(untilTheDatabaseAnswers);

export class Lifecycle {
  constructor(
    private readonly input: ConversationInput,
    private readonly state: ConversationState,
  ) {}

  /** Ends the conversation (once) for `reason`: USER, AGENT, EXPIRED. */
  async close(reason: string): Promise<void> {
    if (this.state.ended) return;
    this.state.ended = true;
    await bookkeeping.closeConversation({ ...this.ids(), reason });
  }

  /**
   * Hands the conversation to a person (once while handed off): the row follows, the visitor is told, and
   * CONVERSATION_HANDED_OFF says `by` whom (AI: the turn's nodes; OPERATOR: the `handoff` update, a person's call).
   */
  async handOff(turn: number, by: 'AI' | 'OPERATOR'): Promise<SentMessage[]> {
    const { state } = this;
    if (state.handedOff || state.ended) return [];
    state.handedOff = true;
    state.handoffs = (state.handoffs ?? 0) + 1;
    const notice = await bookkeeping.handOffConversation({
      ...this.ids(),
      handoff: state.handoffs,
      turn,
      temporalRunId: workflowInfo().runId,
      by,
    });
    return notice ? [notice] : [];
  }

  /** Hands a handed-off conversation back to the agent. */
  async resume(): Promise<void> {
    if (!this.state.handedOff || this.state.ended) return;
    this.state.handedOff = false;
    await bookkeeping.resumeConversation({ ...this.ids(), handoff: this.state.handoffs ?? 0 });
  }

  /** What the turn's nodes asked (system tools, a SAY_AI's action), done after its messages; the reply gets the notice. */
  async settle({ reply, actions }: Turn): Promise<TurnReply> {
    const wants = (type: ConversationAction['type']) => actions.some((a) => a.type === type);
    let settled = reply;
    if (wants('HANDOFF')) settled = { ...reply, messages: [...reply.messages, ...(await this.handOff(reply.turn, 'AI'))] };
    if (wants('END')) await this.close('AGENT');
    return settled;
  }

  /** A user message while a person has the conversation: in the transcript, and no answer. */
  async recordOnly(turn: number, message: UserMessage): Promise<TurnReply> {
    const info = workflowInfo();
    await bookkeeping.recordUserMessage({
      ...this.ids(),
      key: userMessageKey(this.input.conversationId, turn, message),
      text: message.text,
      turn,
      temporalRunId: info.runId,
      ...(message.metadata ? { metadata: message.metadata } : {}),
    });
    return { conversationId: this.input.conversationId, turn, messages: [], temporal: { workflowId: info.workflowId, runId: info.runId } };
  }

  /** CONVERSATION_IDLE: no user message for the channel's idle time. */
  async idle(): Promise<void> {
    await bookkeeping.conversationIdle({ ...this.ids(), turns: this.state.turns, idleMinutes: this.input.idleMinutes! });
  }

  private ids() {
    const { accountId, agentId, conversationId } = this.input;
    return { accountId, agentId, conversationId };
  }
}
