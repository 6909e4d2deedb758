/** `GET /agents/{agentId}/analytics`: credit usage, conversation counts and a breakdown by channel over a date range. */
import { findAgent } from '../../../db/agents/agents.service.js';
import { agentAnalytics } from '../../../db/agents/conversation-analytics.js';
import type { RouteRegistry } from '../../route-registry.js';
import { dateBoundQuery, strictObject } from '../../schemas/common.schema.js';
import { agentParams, type AgentId } from './agent-params.js';

const counts = { conversations: { type: 'integer' }, messages: { type: 'integer' }, credits: { type: 'number' } };

const AnalyticsSchema = strictObject({
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  creditsUsed: { type: 'number' },
  conversations: strictObject({
    total: { type: 'integer' },
    ended: { type: 'integer' },
    withFeedback: { type: 'integer' },
    handedOff: { type: 'integer', description: 'Conversations handed to a person at least once' },
  }),
  byChannel: { type: 'array', items: strictObject({ channel: { type: 'string' }, ...counts }) },
});

const day = (d: Date) => d.toISOString().slice(0, 10);

export function agentAnalyticsRoutes(api: RouteRegistry): void {
  api.add<unknown, { startDate?: string | null; endDate?: string | null }, AgentId>({
    method: 'get',
    operationId: 'getAgentAnalytics',
    path: '/agents/:agentId/analytics',
    scope: 'any',
    tag: 'Agent conversations',
    summary: 'Credit usage, conversation counts and a breakdown by channel of conversations started in the range (default: the last 30 days)',
    params: agentParams(),
    query: {
      type: 'object',
      additionalProperties: false,
      properties: {
        startDate: dateBoundQuery('First day (UTC) of the range, YYYY-MM-DD or an ISO date-time (its day counts); default: 29 days before today'),
        endDate: dateBoundQuery('Last day (UTC) of the range, YYYY-MM-DD or an ISO date-time (its day counts); default: today'),
      },
    },
    responses: { 200: { description: 'Analytics', schema: AnalyticsSchema } },
    handler: async ({ auth, em, params, query }) => {
      const agent = await findAgent(em, auth.account.id, params.agentId);
      const end = query.endDate?.slice(0, 10) ?? day(new Date());
      const start = query.startDate?.slice(0, 10) ?? day(new Date(Date.now() - 29 * 86_400_000));
      return agentAnalytics(em, agent, start, end);
    },
  });
}
