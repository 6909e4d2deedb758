/**
 * Analytics and conversations of an agent. Conversations are recorded by the conversation runtime, which a later
 * version adds; until then these answer from no data: zero counts, empty lists, and no conversation to show.
 */
import { findAgent } from '../../../db/agents/agents.service.js';
import { AGENT_CHANNELS } from '../../../db/agents/agent-defaults.js';
import { NotFoundError } from '../../../lib/errors.js';
import type { RouteRegistry } from '../../routes.js';
import { strictObject } from '../../schemas/common.schema.js';
import { agentParams, type AgentId } from './agent-params.js';

const tag = 'Agent analytics and conversations';
const date = { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}', maxLength: 40 };
const counts = { conversations: { type: 'integer' }, messages: { type: 'integer' }, credits: { type: 'number' } };

const AnalyticsSchema = strictObject({
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  creditsUsed: { type: 'number' },
  conversations: strictObject({ total: { type: 'integer' }, ended: { type: 'integer' }, withFeedback: { type: 'integer' } }),
  byChannel: { type: 'array', items: strictObject({ channel: { type: 'string' }, ...counts }) },
});

const day = (d: Date) => d.toISOString().slice(0, 10);

export function conversationRoutes(api: RouteRegistry): void {
  api.add<unknown, { startDate?: string | null; endDate?: string | null }, AgentId>({
    method: 'get',
    path: '/agents/:agentId/analytics',
    scope: 'any',
    tag,
    summary: 'Credit usage, conversation counts and a breakdown by channel (default: the last 30 days)',
    params: agentParams(),
    query: { type: 'object', additionalProperties: false, properties: { startDate: date, endDate: date } },
    responses: { 200: { description: 'Analytics', schema: AnalyticsSchema } },
    handler: async ({ auth, em, params, query }) => {
      await findAgent(em, auth.account.id, params.agentId);
      const end = query.endDate?.slice(0, 10) ?? day(new Date());
      const start = query.startDate?.slice(0, 10) ?? day(new Date(Date.now() - 29 * 86_400_000));
      return {
        startDate: start,
        endDate: end,
        creditsUsed: 0,
        conversations: { total: 0, ended: 0, withFeedback: 0 },
        byChannel: AGENT_CHANNELS.map((channel) => ({ channel, conversations: 0, messages: 0, credits: 0 })),
      };
    },
  });
  api.add<unknown, { limit: number; cursor?: string }, AgentId>({
    method: 'get',
    path: '/agents/:agentId/conversations',
    scope: 'U',
    tag,
    summary: 'Conversations of the agent, newest first',
    params: agentParams(),
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', maxLength: 200 } },
    },
    responses: {
      200: {
        description: '{ agentry: [conversation], nextCursor }',
        schema: strictObject({ agentry: { type: 'array', maxItems: 0 }, nextCursor: { type: 'null' } }),
      },
    },
    handler: async ({ auth, em, params }) => {
      await findAgent(em, auth.account.id, params.agentId);
      return { agentry: [], nextCursor: null };
    },
  });
  api.add<unknown, unknown, AgentId & { conversationId: string }>({
    method: 'get',
    path: '/agents/:agentId/conversations/:conversationId',
    scope: 'U',
    tag,
    summary: 'A conversation with its message transcript',
    params: agentParams([], ['conversationId']),
    responses: {
      200: {
        description: 'Conversation with messages (recorded by the conversation runtime, a later version)',
        schema: {
          type: 'object',
          required: ['id', 'messages'],
          properties: { id: { type: 'string' }, messages: { type: 'array', items: { type: 'object' } } },
        },
      },
      404: { description: 'No such conversation' },
    },
    handler: async ({ auth, em, params }) => {
      await findAgent(em, auth.account.id, params.agentId);
      throw new NotFoundError(`Conversation ${params.conversationId} not found: this agent has no conversations yet`);
    },
  });
}
