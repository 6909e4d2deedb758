/**
 * `createApp(deps)` builds the Koa application without listening, so tests drive it over real HTTP on a
 * port of their choosing and `server.ts` is the only place that binds.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { TriggerProvider } from '../lib/triggers/trigger-provider.js';
import type { Orm } from '../db/orm.js';
import { OutboxNotifier } from '../db/outbox-notifier.js';
import { BadRequestError, PayloadTooLargeError } from '../lib/errors.js';
import { renderDocsPage } from './docs-page.js';
import { errorHandler, type ErrorLogger } from './error-handler.js';
import { buildOpenApi } from './openapi.js';
import { RouteRegistry } from './routes.js';
import { healthRoutes } from './routes/health.routes.js';
import { inboundWebhookRoutes, incomingWebhookRoutes } from './routes/incoming-webhooks.routes.js';
import { meRoutes } from './routes/me.routes.js';
import { dataRoutes } from './routes/data/index.js';
import { catalogRoutes } from './routes/catalogs.routes.js';
import { triggerResourceRoutes } from './routes/trigger-resources.routes.js';
import { workflowRoutes } from './routes/workflows.routes.js';
import { workflowRunRoutes } from './routes/workflow-runs.routes.js';
import { workflowLogRoutes } from './routes/workflow-logs.routes.js';
import { workflowVariableRoutes } from './routes/workflow-variables.routes.js';
import { agentFeatureRoutes } from './routes/agents/index.js';

export const API_PREFIX = '/public/v1';

export interface AppDeps {
  orm: Orm;
  temporal: Client;
  config: {
    publicBaseUrl: string;
    bodyLimitBytes: number;
    taskQueue: string;
    /** Temporal UI address; run logs link to their run there. */
    temporalUiUrl?: string;
  };
  /**
   * The third-party trigger provider EXTERNAL_TRIGGER nodes subscribe through and trigger resources come from;
   * unset when TRIGGER_PROVIDER_URL is not configured (then those requests answer 400).
   */
  triggers?: TriggerProvider;
  /** Where unexpected errors are logged; console.error by default. */
  logError?: ErrorLogger;
  /** Wakes the outbox dispatchers after requests that may have written events; one on the ORM's pool by default. */
  outbox?: OutboxNotifier;
  /** Extra route declarations under `/public/v1` (used by tests to exercise the shared route machinery). */
  extraRoutes?: (api: RouteRegistry) => void;
}

/** Every `/public/v1` route declaration; the OpenAPI document is built from this list. */
export function publicRoutes(deps: Pick<AppDeps, 'extraRoutes' | 'config' | 'triggers' | 'temporal'>): RouteRegistry {
  const api = new RouteRegistry();
  meRoutes(api);
  dataRoutes(api);
  catalogRoutes(api);
  triggerResourceRoutes(api, deps.triggers);
  workflowVariableRoutes(api);
  workflowRoutes(api, deps.temporal, deps.config.taskQueue, deps.triggers);
  workflowRunRoutes(api, deps.temporal, deps.config.taskQueue);
  workflowLogRoutes(api, deps.temporal, deps.config.temporalUiUrl);
  incomingWebhookRoutes(api, deps.config.publicBaseUrl);
  agentFeatureRoutes(api);
  deps.extraRoutes?.(api);
  return api;
}

export function createApp(deps: AppDeps): Koa {
  const { orm, temporal, config } = deps;
  const getEm = (): EntityManager => orm.em.fork();
  const app = new Koa({ proxy: true });

  const api = publicRoutes(deps);
  // The inbound webhook call lives outside /public/v1 but is part of the public interface, so it is documented too.
  const inbound = new RouteRegistry();
  inboundWebhookRoutes(inbound);
  const openApi = buildOpenApi(api, `${config.publicBaseUrl}${API_PREFIX}`, { registry: inbound, serverUrl: config.publicBaseUrl });
  const docsPage = renderDocsPage(openApi);

  const root = new RouteRegistry();
  healthRoutes(root, { getEm, temporal, taskQueue: config.taskQueue, timeoutMs: 3000 });
  inboundWebhookRoutes(root);

  const publicRouter = new Router({ prefix: API_PREFIX });
  api.mount(publicRouter, getEm);
  publicRouter.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  const rootRouter = new Router();
  root.mount(rootRouter, getEm);
  rootRouter.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = docsPage;
  });

  app.use(async (ctx, next) => {
    ctx.state.requestId = randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(errorHandler(deps.logError ?? ((m, e) => console.error(m, e))));
  // Webhook calls and record changes commit outbox events: wake the dispatchers once the answer is ready.
  const outbox = deps.outbox ?? new OutboxNotifier(orm.em.getKnex(), (e) => console.warn(`outbox notify: ${e.message}`));
  app.use(async (ctx, next) => {
    await next();
    if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) && ctx.status < 400) outbox.poke();
  });
  app.use(
    koaBody({
      json: true,
      jsonStrict: false,
      jsonLimit: config.bodyLimitBytes,
      text: false,
      urlencoded: false,
      multipart: false,
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      onError: (error) => {
        if ((error as { status?: number }).status === 413) throw new PayloadTooLargeError(config.bodyLimitBytes);
        throw new BadRequestError(`Malformed JSON body: ${error.message}`, 'body');
      },
    }),
  );
  for (const router of [publicRouter, rootRouter]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  return app;
}
