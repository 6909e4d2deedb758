/**
 * `createApp(deps)` builds the Koa application without listening, so tests drive it over real HTTP on a
 * port of their choosing and `server.ts` is the only place that binds.
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AiProvider } from '../integrations/ai/ai-provider.js';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { TriggerProvider } from '../lib/triggers/trigger-provider.js';
import type { Orm } from '../db/orm.js';
import { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import { LocalFileStore } from '../integrations/files/local-file-store.js';
import { BadRequestError, PayloadTooLargeError } from '../lib/errors.js';
import { apiReferenceRoutes } from './api-reference.js';
import { corsFor, securityHeaders } from './browser-headers.js';
import { errorHandler, type ErrorLogger } from './error-handler.js';
import type { Config, SignInLimitSettings } from '../lib/config.js';
import type { KeyIdentity } from '../db/accounts/api-keys.service.js';
import { sessionRoutes } from './routes/sessions.routes.js';
import { NO_SIGN_IN_LIMITS, SignInLimits } from './sign-in-limits.js';
import { buildOpenApi } from './openapi.js';
import { rateLimited, SharedBuckets } from './rate-limit.js';
import { requestOrigins } from './request-origin.js';
import type { TrustProxy } from '../lib/http/trusted-proxies.js';
import { httpDuration, httpLabels, readOutboxStateWith, registry } from '../lib/metrics.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { outboxState } from '../db/automations/event-subscribers.js';
import { RouteRegistry } from './route-registry.js';
import { healthRoutes } from './routes/health.routes.js';
import { inboundWebhookRoutes, incomingWebhookRoutes } from './routes/incoming-webhooks.routes.js';
import { meRoutes } from './routes/me.routes.js';
import { inboundTriggerRoutes, TRIGGER_DELIVERY_PATH } from './routes/trigger-deliveries.routes.js';
import { TriggerDeliveries } from '../lib/triggers/delivery-signature.js';
import { dataRoutes } from './routes/data/index.js';
import { catalogRoutes } from './routes/catalogs.routes.js';
import { triggerResourceRoutes } from './routes/trigger-resources.routes.js';
import { workflowRoutes } from './routes/workflows.routes.js';
import { bundleRoutes } from './routes/bundles.routes.js';
import { workflowRunRoutes } from './routes/workflow-runs.routes.js';
import { workflowLogRoutes } from './routes/workflow-logs.routes.js';
import { retryJobRoutes } from './routes/retry-jobs.routes.js';
import { scheduleRoutes } from './routes/schedules.routes.js';
import { workflowVariableRoutes } from './routes/workflow-variables.routes.js';
import { agentFeatureRoutes } from './routes/agents/index.js';
import { widgetRoutes } from './routes/widget.routes.js';
import { widgetAssetRoutes } from './widget/widget-assets.js';
import { consoleRoutes } from './console/console-assets.js';
import { consoleBundle } from './console/console-bundle.js';
import { widgetBundle } from './widget/widget-bundle.js';
import { widgetCors } from './widget/widget-cors.js';
import { WidgetSessions, type WidgetLimits } from './widget/widget-sessions.js';
import { ConversationFeed } from './conversation-feed.js';
import type { SecretBox } from '../lib/secret-box.js';
import { knowledgeRoutes } from './routes/knowledge/knowledge.routes.js';
import { CHANNEL_WEBHOOK_PATH, channelWebhookRoutes } from './routes/channel-webhooks.routes.js';

export const API_PREFIX = '/public/v1';

/** How long a signed-in session lives when the configuration does not say (SESSION_TTL_HOURS' default). */
export const DEFAULT_SESSION_TTL_MS = 12 * 3600_000;

/** The rate-limit bucket of a caller: its key's id, or `s:<session id>` for a signed-in session. */
const limitKeyOf = (auth: KeyIdentity): string => (auth.session ? `s:${auth.session.id}` : String(auth.keyId));

/** Request ids accepted from callers: short and printable. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const silentLogger = createLogger('api', { format: 'json', level: 'silent' });

/** Error codes of a client that went away mid-request or mid-answer (an aborted upload, a closed download). */
const CLIENT_GONE = ['HPE_INVALID_EOF_STATE', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'];

export interface AppDeps {
  orm: Orm;
  temporal: Client;
  config: {
    publicBaseUrl: string;
    bodyLimitBytes: number;
    taskQueue: string;
    /** Temporal UI address; run logs link to their run there. */
    temporalUiUrl?: string;
    /** Proxies trusted to say who the client is (TRUST_PROXY); unset: none, the connection's address is the client. */
    trustProxy?: TrustProxy;
    /** Requests per API key, and calls per incoming webhook; unset: not limited. */
    rateLimits?: Config['rateLimits'];
    /** Browser origins allowed to call the API (`['*']`: any); unset or empty: none. */
    corsOrigins?: string[];
    /** Rate limits of the livechat widget API, per client address and per session; unset: not limited. */
    widgetRateLimits?: WidgetLimits;
    /** How long a signed-in session lives (SESSION_TTL_HOURS); 12 hours when unset. */
    sessionTtlMs?: number;
    /** Sign-in limits per client address and per email, and the email lockout; unset: not limited. */
    signInLimits?: SignInLimitSettings;
    /**
     * TRIGGER_SIGNING_KEY: the per-subscription secrets of trigger deliveries derive from it. Unset: subscriptions
     * are made without a callback URL and `POST /trigger-deliveries/{id}` answers 404.
     */
    triggerSigningKey?: string;
  };
  /**
   * The third-party trigger provider EXTERNAL_TRIGGER nodes subscribe through and trigger resources come from;
   * unset when TRIGGER_PROVIDER_URL is not configured (then those requests answer 400).
   */
  triggers?: TriggerProvider;
  /** The process's logger: one line per request, and unexpected errors; none: nothing is logged. */
  logger?: Logger;
  /** Where unexpected errors are logged; the logger's error level by default. */
  logError?: ErrorLogger;
  /** Wakes the outbox dispatchers after requests that may have written events; one on the ORM's pool by default. */
  outbox?: OutboxNotifier;
  /** Where the bytes of record files are stored; the local folder `.data/files` when unset. */
  files?: FileStore;
  /** The AI gateway's provider (intent phrase suggestions, `/healthz`); unset: AI_BASE_URL is not configured. */
  ai?: AiProvider | null;
  /**
   * Opens and seals stored secrets with SETTINGS_ENCRYPTION_KEY (agents' identity secrets, which verify identified
   * widget visitors); null or unset: the key is not configured, and identity verification is refused saying so.
   */
  secrets?: SecretBox | null;
  /** Extra route declarations under `/public/v1` (used by tests to exercise the shared route machinery). */
  extraRoutes?: (api: RouteRegistry) => void;
  /**
   * What wakes this process's conversation streams (one LISTEN connection, made with the first open stream); one on
   * the ORM's database by default. Whoever passes one closes it.
   */
  feed?: ConversationFeed;
}

/** Every `/public/v1` route declaration; the OpenAPI document is built from this list. */
export function publicRoutes(
  deps: Pick<AppDeps, 'extraRoutes' | 'config' | 'triggers' | 'temporal' | 'files' | 'ai' | 'secrets'> & {
    feed: ConversationFeed;
    buckets: SharedBuckets;
  },
): RouteRegistry {
  const api = new RouteRegistry();
  const deliveries = triggerDeliveriesOf(deps.config);
  meRoutes(api);
  sessionRoutes(api, {
    limits: new SignInLimits(deps.buckets, deps.config.signInLimits ?? NO_SIGN_IN_LIMITS),
    ttlMs: deps.config.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
  });
  dataRoutes(api, deps.files ?? new LocalFileStore('.data/files'));
  catalogRoutes(api);
  triggerResourceRoutes(api, deps.triggers);
  workflowVariableRoutes(api);
  workflowRoutes(api, deps.temporal, deps.config.taskQueue, deps.triggers, deliveries);
  workflowRunRoutes(api, deps.temporal);
  bundleRoutes(api, deps.temporal, deps.config);
  workflowLogRoutes(api, deps.temporal, deps.config.temporalUiUrl);
  retryJobRoutes(api, deps.temporal, deps.config.taskQueue);
  scheduleRoutes(api, deps.temporal);
  incomingWebhookRoutes(api, deps.config.publicBaseUrl);
  agentFeatureRoutes(api, deps.ai ?? null, deps.temporal, deps.feed, deps.config.taskQueue, deps.secrets ?? null, deps.config.temporalUiUrl);
  knowledgeRoutes(api, deps.ai ?? null);
  deps.extraRoutes?.(api);
  return api;
}

/** Where trigger deliveries arrive and how they are signed; undefined without a signing key. */
function triggerDeliveriesOf(config: AppDeps['config']): TriggerDeliveries | undefined {
  return config.triggerSigningKey ? new TriggerDeliveries(config.triggerSigningKey, config.publicBaseUrl) : undefined;
}

/** The routes outside /public/v1: webhook calls, trigger deliveries, Meta's webhook and the livechat widget's API. */
function inboundRoutes(
  registry: RouteRegistry,
  deps: AppDeps,
  shared: { sessions: WidgetSessions; feed: ConversationFeed; buckets: SharedBuckets },
): RouteRegistry {
  inboundWebhookRoutes(registry);
  inboundTriggerRoutes(registry, triggerDeliveriesOf(deps.config), deps.config.bodyLimitBytes);
  channelWebhookRoutes(
    registry,
    deps.secrets ?? null,
    deps.config.bodyLimitBytes,
    { orm: deps.orm, temporal: deps.temporal, taskQueue: deps.config.taskQueue },
    { buckets: shared.buckets, perAccount: deps.config.rateLimits?.perWebhook ?? null },
  );
  widgetRoutes(registry, shared.sessions, deps.temporal, shared.feed);
  return registry;
}

export function createApp(deps: AppDeps): Koa {
  const { orm, temporal, config } = deps;
  const getEm = (): EntityManager => orm.em.fork();
  const app = new Koa();
  readOutboxStateWith(() => outboxState(orm.em.getKnex()));
  const logger = deps.logger ?? silentLogger;
  const logError = deps.logError ?? ((message, error) => logger.error({ err: error }, message));
  // Failures after the answer began (a stream body that broke, a client gone) reach Koa's app-level handler.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (!CLIENT_GONE.includes(error.code ?? '')) logError('response failed', error);
  });

  const feed = deps.feed ?? new ConversationFeed(String(orm.config.get('clientUrl')), { log: (message) => logger.warn(message) });
  // Every limit's buckets are shared by all API processes, in PostgreSQL.
  const buckets = new SharedBuckets(orm.em.getKnex(), (message, error) => logger.warn({ err: error }, message));
  const api = publicRoutes({ ...deps, feed, buckets });
  const sessions = new WidgetSessions(
    temporal,
    config.taskQueue,
    deps.secrets ?? null,
    buckets,
    config.widgetRateLimits ?? { perAddress: null, perSession: null },
  );
  // The inbound calls live outside /public/v1 but are part of the public interface, so they are documented too.
  const inbound = inboundRoutes(new RouteRegistry(), deps, { sessions, feed, buckets });
  const openApi = buildOpenApi(api, `${config.publicBaseUrl}${API_PREFIX}`, { registry: inbound, serverUrl: config.publicBaseUrl });

  const root = new RouteRegistry();
  healthRoutes(root, { getEm, temporal, taskQueue: config.taskQueue, timeoutMs: 3000, ai: deps.ai ?? null });
  inboundRoutes(root, deps, { sessions, feed, buckets });

  const publicRouter = new Router({ prefix: API_PREFIX });
  // A signed-in session has a bucket of its own, as a key has.
  const perKey = rateLimited(buckets, 'key', config.rateLimits?.perKey, (ctx) => limitKeyOf(ctx.state.auth), 'this API key or session');
  api.mount(publicRouter, getEm, perKey);
  publicRouter.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  const rootRouter = new Router();
  // Layers of one path run in the order they are added: the webhook's limit comes before its route.
  rootRouter.post(
    '/webhooks/:webhookId',
    rateLimited(buckets, 'webhook', config.rateLimits?.perWebhook, (ctx) => ctx.params.webhookId, 'this webhook'),
  );
  rootRouter.post(
    '/trigger-deliveries/:subscriptionId',
    rateLimited(buckets, 'trigger-subscription', config.rateLimits?.perWebhook, (ctx) => ctx.params.subscriptionId, 'this trigger subscription'),
  );
  // Meta's deliveries are limited by the route itself: refused ones per client address, accepted ones per account.
  root.mount(rootRouter, getEm);
  // Prometheus metrics of this process (requests, the outbox); serve them to your scraper, not to the internet.
  rootRouter.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  apiReferenceRoutes(rootRouter, `${API_PREFIX}/openapi.json`);
  widgetAssetRoutes(rootRouter);
  widgetBundle(); // built now, not on the first visitor's request
  consoleRoutes(rootRouter);
  consoleBundle();

  app.use(requestOrigins(config.trustProxy));
  app.use(async (ctx, next) => {
    // A caller's (or a proxy's) request id is kept, so one id follows a request through every log.
    const given = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      // The route pattern (`/public/v1/workflows/:workflowId`), never the raw path, keeps the label set bounded.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const seconds = (performance.now() - started) / 1000;
      httpDuration.observe(httpLabels(ctx.method, route, ctx.status), seconds);
      const auth = ctx.state.auth as { account?: { id: number }; keyId?: number | null; session?: { id: string } | null } | undefined;
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(seconds * 1000),
          accountId: auth?.account?.id,
          keyId: auth?.keyId ?? undefined,
          sessionId: auth?.session?.id,
        },
        'request',
      );
    }
  });
  // Outside the headers and CORS, so that a failure of theirs (the widget's origins read while PostgreSQL restarts)
  // is answered like any other (503 database_unavailable); the headers they set before a failure further in stay.
  app.use(errorHandler(logError));
  app.use(securityHeaders);
  // The widget's routes answer the origins each agent allows; CORS_ORIGINS is for the key-authenticated API.
  const apiCors = corsFor(config.corsOrigins ?? []);
  app.use((ctx, next) => (ctx.path.startsWith('/widget/') ? next() : apiCors(ctx, next)));
  app.use(widgetCors(getEm));
  // Webhook calls and record changes commit outbox events: wake the dispatchers once the answer is ready (only after
  // a request that wrote events: a NOTIFY costs every dispatcher a pass).
  const outbox = deps.outbox ?? new OutboxNotifier(orm.em.getKnex(), (e) => logger.warn({ err: e }, 'outbox notify failed'));
  app.use(async (_ctx, next) => {
    const mark = outbox.mark();
    try {
      await next();
    } finally {
      outbox.pokeIfWritten(mark);
    }
  });
  const parseBody = koaBody({
    json: true,
    jsonStrict: false,
    jsonLimit: config.bodyLimitBytes,
    text: false,
    urlencoded: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    // Kept for the route to raise once it knows the caller may see the resource (api/route-registry.ts): another
    // account's resource is 404 whatever the body, a malformed or oversized one included.
    onError: (error, ctx) => {
      ctx.state.bodyError =
        (error as { status?: number }).status === 413
          ? new PayloadTooLargeError(config.bodyLimitBytes)
          : new BadRequestError(`Malformed JSON body: ${error.message}`, 'body');
    },
  });
  // Signed trigger and Meta deliveries read their body as sent (the signature covers the bytes), so the parser skips them.
  const rawBodyPaths = [TRIGGER_DELIVERY_PATH, CHANNEL_WEBHOOK_PATH];
  app.use((ctx, next) => (ctx.method === 'POST' && rawBodyPaths.some((path) => path.test(ctx.path)) ? next() : parseBody(ctx, next)));
  for (const router of [publicRouter, rootRouter]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  return app;
}
