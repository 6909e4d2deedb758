/**
 * The widget API's rules, without Koa: which sites may start a session (the livechat `allowedOrigins`), how fast a
 * visitor may go (token buckets per client address and per session), who the visitor is (a verified `userHash`, never
 * silently downgraded), and the session token that scopes every later call to one agent and one conversation.
 * Conversations are the runtime's own (`startConversation`, `sendUserMessage`, …) on the `livechat` channel.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { conversationView, findConversation, listMessages, type Visitor } from '../../db/agents/conversations.service.js';
import { findWidgetAgent, livechatView, openIdentitySecret, visitorConversation, type LivechatView } from '../../db/agents/widget.service.js';
import type { Agent } from '../../db/agents/agent.entity.js';
import type { Conversation } from '../../db/agents/conversation.entity.js';
import type { RateLimitSetting } from '../../lib/config.js';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { readSessionToken, signSessionToken, verifiesIdentity, type SessionClaims } from '../../lib/widget/session-token.js';
import { RateLimitedError, type SharedBuckets, type TokenBuckets } from '../rate-limit.js';
import { startConversation } from '../temporal/conversation-runtime.js';
import type { MessageMetadata } from '../../lib/runtime/contract.js';

/** A session token is good for this long; the widget asks for a new one for the same conversation after it. */
export const SESSION_TTL_SECONDS = 2 * 3600;

export interface WidgetLimits {
  /** Session starts and messages per client address. */
  perAddress: RateLimitSetting | null;
  /** Messages per session (conversation). */
  perSession: RateLimitSetting | null;
}

/** Where a request came from: its `Origin`, the API's own origin (the full-page chat), the client's address. */
export interface Caller {
  origin?: string;
  selfOrigin: string;
  address: string;
}

export interface SessionRequest {
  resume?: string;
  userId?: string;
  name?: string;
  email?: string;
  userHash?: string;
  pageUrl?: string;
}

export class WidgetSessions {
  private readonly perAddress: TokenBuckets | null;
  private readonly perSession: TokenBuckets | null;

  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
    private readonly secrets: SecretBox | null,
    buckets: SharedBuckets,
    limits: WidgetLimits,
  ) {
    this.perAddress = limits.perAddress && buckets.of('widget-address', limits.perAddress);
    this.perSession = limits.perSession && buckets.of('widget-session', limits.perSession);
  }

  /** 429 when the address (and the session, for messages) is over its limit. */
  async charge(caller: Caller, conversationId?: string): Promise<void> {
    const [address, session] = await Promise.all([
      this.perAddress?.take(caller.address) ?? 0,
      conversationId ? (this.perSession?.take(conversationId) ?? 0) : 0,
    ]);
    const wait = Math.max(address, session);
    if (wait) throw new RateLimitedError(wait, conversationId ? 'this chat' : 'this address');
  }

  /** Whether pages of `origin` may use the agent's widget: any when the list is empty, the API's own pages always. */
  static allows(view: Pick<LivechatView, 'allowedOrigins'>, origin: string | undefined, selfOrigin: string): boolean {
    return !view.allowedOrigins.length || (origin !== undefined && (origin === selfOrigin || view.allowedOrigins.includes(origin)));
  }

  /** The theme and availability, for the launcher before any session exists. */
  async config(em: EntityManager, agentId: string) {
    const agent = await findWidgetAgent(em, agentId);
    const view = await livechatView(em, agent.id);
    return { status: agent.isOffline || !view.enabled ? 'offline' : 'online', theme: view.theme };
  }

  /**
   * A session: the conversation of the stored token or of the identified visitor when it is still active, else a new
   * one (its greeting runs); `null` conversation when the agent is offline or livechat is off.
   */
  async start(em: EntityManager, agentId: string, request: SessionRequest, caller: Caller) {
    const agent = await findWidgetAgent(em, agentId);
    const view = await livechatView(em, agent.id);
    if (!WidgetSessions.allows(view, caller.origin, caller.selfOrigin)) {
      throw new ForbiddenError(
        `This agent's widget does not serve pages of ${caller.origin ?? 'an unnamed origin'}: see allowedOrigins in its livechat settings`,
      );
    }
    await this.charge(caller);
    if (agent.isOffline || !view.enabled) return { status: 'offline' as const, theme: view.theme, message: String(view.theme.offlineMessage ?? '') };
    const visitor = this.identify(agent, request);
    const resumed = await this.resumable(em, agent, request.resume, visitor);
    const conversation = resumed
      ? { id: resumed.id, messages: (await listMessages(em, resumed.id)).map(forVisitor) }
      : await startConversation(em, this.temporal, this.taskQueue, agent, 'livechat', visitor ?? undefined);
    const expires = Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS;
    const claims: SessionClaims = { a: agent.id, c: conversation.id, ...(visitor ? { u: visitor.visitorId } : {}), e: expires };
    return {
      status: 'online' as const,
      token: signSessionToken(agent.widgetSessionKey, claims),
      expiresAt: new Date(expires * 1000).toISOString(),
      conversationId: conversation.id,
      resumed: !!resumed,
      feedback: view.collectFeedback,
      theme: view.theme,
      visitor: visitor ? { userId: visitor.visitorId, name: visitor.contactName ?? null } : null,
      messages: conversation.messages,
    };
  }

  /** The verified visitor, or null when none is claimed; a claim that does not verify is a 401, never ignored. */
  private identify(agent: Agent, request: SessionRequest): Visitor | null {
    const { userId, userHash, name, email } = request;
    if (userId === undefined && userHash === undefined) {
      if (name !== undefined || email !== undefined)
        throw new BadRequestError('name and email are taken only with a verified userId and userHash', 'body.userId');
      return null;
    }
    if (userId === undefined || userHash === undefined) throw new UnauthorizedError('An identified visitor needs both userId and userHash');
    if (!verifiesIdentity(openIdentitySecret(agent, this.secrets), userId, userHash)) {
      throw new UnauthorizedError('userHash does not match userId: it must be hex(HMAC-SHA256(identity secret, userId))');
    }
    return { visitorId: userId, contactName: name ?? null, contactEmail: email ?? null };
  }

  private async resumable(em: EntityManager, agent: Agent, token: string | undefined, visitor: Visitor | null): Promise<Conversation | null> {
    const claims = token ? readSessionToken(agent.widgetSessionKey, token) : null;
    if (claims && claims.a === agent.id && claims.u === visitor?.visitorId) {
      const found = await findConversation(em, agent, claims.c).catch(() => null);
      if (found && found.status !== 'ENDED') return found;
    }
    return visitor ? visitorConversation(em, agent, visitor.visitorId) : null;
  }

  /** The agent and conversation a token names, when it is this agent's, for this conversation, and unexpired; else 401. */
  async authorize(em: EntityManager, agentId: string, conversationId: string, authorization: string | undefined) {
    const agent = await findWidgetAgent(em, agentId);
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const claims = token ? readSessionToken(agent.widgetSessionKey, token) : null;
    if (!claims || claims.a !== agent.id || claims.c !== conversationId.toLowerCase()) {
      throw new UnauthorizedError('A session token of this conversation is required: Authorization: Bearer <token from POST .../sessions>');
    }
    if (claims.e * 1000 <= Date.now()) throw new UnauthorizedError('The session token has expired: start the session again with it as `resume`');
    return { agent, conversation: await findConversation(em, agent, conversationId) };
  }

  /** The conversation as the widget resumes it: its status and transcript. */
  async transcript(em: EntityManager, conversation: Conversation) {
    const view = conversationView(conversation);
    return { conversationId: view.id, status: view.status, messages: (await listMessages(em, conversation.id)).map(forVisitor) };
  }
}

/**
 * A transcript message as a widget visitor sees it: an operator's message keeps the name they chose, not the id of
 * their user in the account; the AI's tool calls are the account's to read.
 */
export function forVisitor<M extends { metadata?: MessageMetadata | null }>(message: M): M {
  if (!message.metadata) return message;
  const { operator, toolCalls, ...metadata } = message.metadata;
  if (!operator && !toolCalls) return message;
  const visible = { ...metadata, ...(operator && { operator: { userId: null, name: operator.name } }) };
  return { ...message, metadata: Object.keys(visible).length ? visible : null };
}
