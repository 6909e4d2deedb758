/**
 * CORS of the widget API: the conversation routes of an agent answer browsers only on the origins of its livechat
 * `allowedOrigins` (any origin while the list is empty), looked up per request; the script itself is for every site.
 * Nothing here uses cookies, so credentials are never allowed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Middleware } from 'koa';
import { livechatView } from '../../db/agents/widget.service.js';
import { databaseUnavailable } from '../../db/database.js';
import { UUID } from '../../db/agents/agents.service.js';
import { WidgetSessions } from './widget-sessions.js';
import { selfOriginOf } from '../request-origin.js';

const AGENT_PATH = /^\/widget\/v1\/agents\/([^/]+)\//;
const EXPOSED = 'Retry-After, X-Request-Id';

/**
 * An agent's allowed origins are read at most every `CACHE_MS` per API process for CORS (a visitor's every message
 * would otherwise read the agent's settings once more); starting a session always reads them afresh, so a change
 * refuses new sessions at once and CORS follows within this time.
 */
const CACHE_MS = 5_000;
const CACHE_SIZE = 10_000;

export function widgetCors(getEm: () => EntityManager): Middleware {
  const cache = new Map<string, { origins: string[]; at: number }>();
  const originsOf = async (agentId: string): Promise<string[]> => {
    const hit = cache.get(agentId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.origins;
    let origins: string[];
    try {
      origins = (await livechatView(getEm(), agentId)).allowedOrigins;
    } catch (error) {
      // While PostgreSQL is away, the list last read still holds: the page's request then fails, or waits, further
      // in with a status its script can read, rather than as a CORS error.
      if (hit && databaseUnavailable(error)) return hit.origins;
      throw error;
    }
    cache.delete(agentId);
    cache.set(agentId, { origins, at: Date.now() });
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return origins;
  };
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (!ctx.path.startsWith('/widget/') || !origin) return next();
    const agentId = AGENT_PATH.exec(ctx.path)?.[1];
    const allowed = agentId
      ? UUID.test(agentId) && WidgetSessions.allows({ allowedOrigins: await originsOf(agentId.toLowerCase()) }, origin, selfOriginOf(ctx))
      : ctx.method === 'GET' || ctx.method === 'HEAD';
    ctx.vary('Origin');
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED);
    }
    if (ctx.method !== 'OPTIONS') return next();
    if (allowed) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      ctx.set('Access-Control-Max-Age', '600');
    }
    ctx.status = 204;
  };
}
