/** Calling the key-less widget API as a browser page would: with an Origin, a session token, a user agent. */
import { createHmac } from 'node:crypto';
import type { WidgetLimits } from '../../../api/widget/widget-sessions.js';
import { harness, listen } from '../../setup/harness.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { intent, intentFlow, talkingAgent, type TalkingAgent } from '../agents/conversation.helpers.js';

export interface WidgetReply {
  status: number;
  body: any;
  headers: Headers;
}

export async function widgetCall(
  method: string,
  path: string,
  options: { origin?: string; token?: string; body?: unknown; raw?: string; api?: string; headers?: Record<string, string> } = {},
): Promise<WidgetReply> {
  const headers: Record<string, string> = { 'user-agent': 'WidgetTest/1.0', ...options.headers };
  if (options.origin) headers.origin = options.origin;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${options.api ?? harness().origin}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body, headers: res.headers };
}

export const sessionsPath = (agentId: string) => `/widget/v1/agents/${agentId}/sessions`;
export const conversationPath = (agentId: string, conversationId: string, rest = '') =>
  `/widget/v1/agents/${agentId}/conversations/${conversationId}${rest}`;

/** An online agent greeting "Welcome to the shop!" with an intent flow answering order questions without AI calls. */
export async function shopAgent(a: Account, greeting = 'Welcome to the shop!'): Promise<TalkingAgent> {
  const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: greeting } }]);
  const orders = await intent(a, agent, 'Order status', ['where is my order', 'track my order', 'order status']);
  await intentFlow(a, agent, 'Orders', [orders], [{ type: 'SAY_AI', data: { message: 'Your order is on its way.' } }]);
  return agent;
}

export async function rotateSecret(a: Account, agentId: string): Promise<string> {
  return (await ok('POST', `/agents/${agentId}/identity-secret/rotate`, a.userKey, undefined, 200)).identitySecret;
}

export const userHash = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');

/** An API of its own with these widget rate limits (the suite's API has none); close its `server` after. */
export function limitedApi(widgetRateLimits: WidgetLimits) {
  return listen({ config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue: harness().taskQueue, widgetRateLimits } });
}
