/**
 * Route registry. Every endpoint is declared once with its key scope and its schemas; from that one
 * declaration the registry mounts the Koa handler (authentication, scope check, validation) and the
 * OpenAPI document describes it. Routers therefore only state `scope: 'U'` or `scope: 'any'`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context, Middleware } from 'koa';
import type { KeyIdentity } from '../db/accounts/api-keys.service.js';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../lib/errors.js';
import { lockDocument } from '../db/document-lock.js';
import { authenticate, requireScope, type Scope } from './auth.js';
import { checkIfMatch, etagOf, noneMatchHits } from './etag.js';
import { guardInput } from './input-guard.js';
import { compileSchema, validate, type JsonSchema, type Validator } from './validation.js';
import { originOf, selfOriginOf } from './request-origin.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler receives: validated input and the caller's identity, never the Koa context. */
export interface RouteInput<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  /** Present on every route whose scope is not `public`. */
  auth: KeyIdentity;
  /** A fresh entity manager for this request. */
  em: EntityManager;
  /** Request headers, names in lower case. */
  headers: IncomingHttpHeaders;
  /** The request body, unread by the JSON parser when not JSON: `multipart` routes stream it themselves. */
  stream: Readable;
  /** The client's address: the connection's, or the one trusted proxies forwarded (TRUST_PROXY, api/request-origin.ts). */
  clientAddress: string;
  /** This API's own origin as the request reached it (`http://host:port`). */
  selfOrigin: string;
}

export interface RouteResponse {
  description: string;
  schema?: JsonSchema;
  /** Media types of a binary answer (a download, an export) instead of JSON. */
  contentTypes?: string[];
}

/**
 * The verbs operation ids start with: what the caller does. A new verb is fine where none of these says it; the
 * OpenAPI test holds every id to a verb of this list, then what it acts on (`listRecordTypes`).
 */
export const OPERATION_VERBS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'count',
  'preview',
  'compute',
  'export',
  'link',
  'unlink',
  'complete',
  'uncomplete',
  'upload',
  'download',
  'check',
  'generate',
  'rotate',
  'call',
  'deliver',
  'start',
  'send',
  'stream',
  'end',
  'cancel',
  'publish',
  'query',
  'handOff',
  'resume',
  'retry',
  'terminate',
  'backfill',
  'trigger',
  'restore',
  'import',
  'claim',
  'release',
] as const;

/**
 * The name of an operation in the OpenAPI document, and of its method in generated clients: a verb, then what it
 * acts on, in camelCase, as a person would call it (`listRecordTypes`, `sendConversationMessage`, `publishFlow`).
 */
export type OperationId = `${(typeof OPERATION_VERBS)[number]}${Capitalize<string>}`;

export interface RouteSpec<Body = unknown, Query = Record<string, unknown>, Params = Record<string, string>> {
  method: Method;
  /**
   * Required, unique among the routes and stable: clients call the operation by this name, so renaming it breaks
   * them. Words of SPEC.md (workflow, record, row), singular for one item, plural for a list.
   */
  operationId: OperationId;
  /** Koa path relative to the router prefix, e.g. `/workflows/:workflowId`. */
  path: string;
  /** `U`: USER key only; `any`: USER or GENERAL key; `public`: no key. */
  scope: Scope | 'public';
  summary: string;
  tag: string;
  params?: JsonSchema;
  query?: JsonSchema;
  /**
   * Request headers the route reads, by their canonical names (`Idempotency-Key`): documented as header parameters and
   * validated like the query (issues at `headers.<Name>`); the handler reads them from `headers` (lower case).
   */
  headers?: JsonSchema;
  body?: JsonSchema;
  /**
   * `any`: the body may be any JSON value (object, array, string, number, boolean, null) and reaches the handler
   * exactly as sent; a non-JSON Content-Type is refused with 415 and a missing or empty body with 400.
   * Unset: a missing body reads as `{}`; a body sent must be JSON (else 415) and is validated as sent, so `null`
   * where the schema wants an object is a 400.
   */
  jsonBody?: 'any';
  /**
   * The body carries user data (rows, a run's payload): it may be as large as the process's body limit
   * (`BODY_LIMIT_BYTES`). Other bodies are configuration, held to `CONFIG_BODY_LIMIT_BYTES` (413 past it).
   */
  largeBody?: true;
  /**
   * The body is JSON the handler reads from `stream` exactly as sent, because a signature covers its bytes; the
   * body parser leaves it alone (see `rawBodyPaths` in app.ts). Documented only, with this schema and description.
   */
  rawBody?: { schema: JsonSchema; description: string };
  /** The body is `multipart/form-data` with these parts (documented only; the handler reads `stream`). */
  multipart?: JsonSchema;
  /**
   * The stored document this write changes, as a key unique within the account (`agent:<agentId>`). The handler
   * runs in one transaction that first takes the document's lock (db/document-lock.ts): concurrent writes of one
   * document run one after another, each on what the one before it committed, so no acknowledged write is lost, and
   * a failure leaves nothing half-written.
   */
  lock?: (params: Params) => string;
  /**
   * The document's version tag. `true` on a GET: its answer carries the `ETag` of the body (304 to a matching
   * `If-None-Match`). A reader on a `lock` write (the document as its GET answers it): an `If-Match` that names
   * another version is refused with 412 under the lock, before anything changes, and the answer carries the new ETag.
   */
  etag?: true | ((input: RouteInput<any, any, Params>) => Promise<unknown>);
  /** Success status; 200 unless given. */
  status?: number;
  responses: Record<number, RouteResponse>;
  handler: (input: RouteInput<Body, Query, Params>) => Promise<unknown> | unknown;
}

/** Returned by a handler whose status or headers depend on the outcome. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** Response headers, set after the body (Koa drops Content-Length when a stream body is assigned). */
    readonly headers: Record<string, string | number> = {},
  ) {}
}

interface Compiled {
  params?: Validator;
  query?: Validator;
  headers?: Validator;
  body?: Validator;
}

/**
 * A resource that paths name (`/tables/:name`, `/agents/:agentId/flows/:flowId`): how the caller's account finds it,
 * from the route's validated path parameters, throwing `NotFoundError` when the account has none.
 */
export interface PathResource {
  /** Koa path of the resource, matched against the start of route paths as written (`:agentId` matches `:agentId`). */
  path: string;
  find: (em: EntityManager, accountId: number, params: any) => Promise<unknown>;
}

/** Collects route declarations; mounted on a router (which carries the URL prefix), and read by the OpenAPI builder. */
export class RouteRegistry {
  readonly routes: RouteSpec<any, any, any>[] = [];
  readonly resources: PathResource[] = [];

  /**
   * Declares a resource its routes name in their paths. Ownership comes before validation: a request refused with a
   * 4xx other than 404 (its body, query or headers invalid, or the handler's own refusal) first looks up each resource
   * its path names, outermost first, so a resource the account does not have (another account's, or none) answers 404
   * whatever else is wrong with the request. Found resources cost nothing on requests that succeed.
   */
  resource<Params>(path: string, find: (em: EntityManager, accountId: number, params: Params) => Promise<unknown>): void {
    // Several route sets share an owner (a workflow's graph and its variables): its first declaration stands.
    if (!this.resources.some((r) => r.path === path)) this.resources.push({ path, find });
  }

  /** The declared resources a route's path names, outermost first. */
  resourcesOf(spec: RouteSpec<any, any, any>): PathResource[] {
    if (spec.scope === 'public') return [];
    const segments = spec.path.split('/');
    return this.resources
      .filter((r) => r.path.split('/').every((segment, i) => segments[i] === segment))
      .sort((a, b) => a.path.length - b.path.length);
  }

  add<Body, Query = Record<string, unknown>, Params = Record<string, string>>(spec: RouteSpec<Body, Query, Params>): void {
    if (spec.lock && spec.scope === 'public') throw new Error(`${spec.method} ${spec.path}: a document lock needs an authenticated account`);
    if (typeof spec.etag === 'function' && !spec.lock) throw new Error(`${spec.method} ${spec.path}: If-Match is checked under the lock`);
    const same = this.routes.find((route) => route.operationId === spec.operationId);
    if (same) throw new Error(`${spec.method} ${spec.path}: operationId ${spec.operationId} is already ${same.method} ${same.path}'s`);
    this.routes.push(spec);
  }

  /**
   * Registers every declared route on the router, with schemas compiled once; `afterAuth` runs on authenticated
   * routes once the key is known (the per-key rate limit).
   */
  mount(router: Router, getEm: () => EntityManager, afterAuth?: Middleware): void {
    for (const spec of this.routes) {
      const compiled: Compiled = {
        params: spec.params && compileSchema(spec.params, { coerce: true }),
        query: spec.query && compileSchema(spec.query, { coerce: true }),
        headers: spec.headers && compileSchema(spec.headers),
        body: spec.body && compileSchema(spec.body),
      };
      const stack = spec.scope === 'public' ? [] : [authenticate(getEm), ...(afterAuth ? [afterAuth] : []), requireScope(spec.scope)];
      const resources = this.resourcesOf(spec);
      router[spec.method](spec.path, ...stack, async (ctx: Context) => {
        const params = readParams(ctx, compiled);
        let reply: Reply;
        try {
          reply = await respond(spec, readInput(ctx, spec, compiled, params, getEm));
        } catch (error) {
          if (resources.length && isRefusal(error)) await findAll(resources, ctx.state.em ?? getEm(), ctx.state.auth, params);
          throw error;
        }
        if (reply.headers.ETag && spec.method === 'get' && noneMatchHits(ctx.get('if-none-match') || undefined, String(reply.headers.ETag))) {
          ctx.status = 304;
          ctx.set('ETag', String(reply.headers.ETag));
          return;
        }
        ctx.status = reply.status;
        if (reply.body !== undefined) ctx.body = reply.body;
        ctx.set(Object.fromEntries(Object.entries(reply.headers).map(([name, value]) => [name, String(value)])));
      });
    }
  }
}

/** A refusal of the request that a missing resource takes precedence over (404 itself, and 5xx, do not). */
const isRefusal = (error: unknown): boolean => error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 404;

/** Finds each resource in the caller's account, outermost first: the first missing one throws its 404. */
async function findAll(resources: PathResource[], em: EntityManager, auth: KeyIdentity, params: Record<string, unknown>): Promise<void> {
  for (const resource of resources) await resource.find(em, auth.account.id, params);
}

function replyOf(spec: RouteSpec<any, any, any>, result: unknown): Reply {
  return result instanceof Reply ? result : new Reply(spec.status ?? 200, result);
}

/** Runs the handler; a `lock` route in a transaction holding the document's lock, checking `If-Match` first. */
async function respond(spec: RouteSpec<any, any, any>, input: RouteInput<any, any, any>): Promise<Reply> {
  const { lock, etag } = spec;
  if (!lock) {
    const reply = replyOf(spec, await spec.handler(input));
    if (etag === true && reply.status === 200) reply.headers.ETag = etagOf(reply.body);
    return reply;
  }
  return input.em.transactional(async (em) => {
    const locked = { ...input, em };
    await lockDocument(em, input.auth.account.id, lock(input.params));
    const read = typeof etag === 'function' ? etag : undefined;
    const ifMatch = input.headers['if-match'];
    if (read && ifMatch !== undefined) checkIfMatch(ifMatch, await read(locked));
    const reply = replyOf(spec, await spec.handler(locked));
    if (read && reply.status < 300 && reply.status !== 204) reply.headers.ETag = etagOf(await read(locked));
    return reply;
  });
}

/** The path parameters, validated: the resources of the path are found by them. */
function readParams(ctx: Context, compiled: Compiled): Record<string, unknown> {
  const params = { ...(ctx as unknown as { params: Record<string, string> }).params };
  guardInput(params, 'params');
  return compiled.params ? validate(compiled.params, params, 'params') : params;
}

function readInput(
  ctx: Context,
  spec: RouteSpec<any, any, any>,
  compiled: Compiled,
  params: Record<string, unknown>,
  getEm: () => EntityManager,
): RouteInput<any, any, any> {
  // A body the parser refused (malformed JSON, over the limit) is refused in the route, so a missing resource answers 404 first.
  if (ctx.state.bodyError) throw ctx.state.bodyError as Error;
  const query = { ...ctx.query };
  const body = spec.rawBody ? {} : spec.jsonBody === 'any' ? anyJsonBody(ctx) : spec.body ? schemaBody(ctx, spec) : {};
  guardInput(query, 'query');
  guardInput(body, 'body');
  if (compiled.headers) validate(compiled.headers, declaredHeaders(ctx, spec.headers!), 'headers');
  return {
    params,
    query: compiled.query ? validate(compiled.query, query, 'query') : query,
    body: compiled.body ? validate(compiled.body, body, 'body') : body,
    auth: ctx.state.auth,
    em: ctx.state.em ?? getEm(),
    headers: ctx.headers,
    stream: ctx.req,
    clientAddress: originOf(ctx).address,
    selfOrigin: selfOriginOf(ctx),
  };
}

/** The headers a route declares, under their declared names, as sent (a header sent twice arrives joined by Node). */
function declaredHeaders(ctx: Context, schema: JsonSchema): Record<string, string> {
  const names = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  return Object.fromEntries(names.filter((name) => name.toLowerCase() in ctx.headers).map((name) => [name, ctx.get(name)]));
}

/** Whether the request carries a body (a length, or a chunked one); `ctx.request.length` is undefined when chunked. */
function hasBody(ctx: Context): boolean {
  return (ctx.request.length ?? 0) > 0 || !!ctx.get('transfer-encoding');
}

/** Largest body of a configuration route (not `largeBody`): names, graphs, fields, settings. */
export const CONFIG_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The body of a route with a body schema: `{}` when none is sent (operations without required fields), else the
 * parsed JSON as sent. A body of another Content-Type is refused with 415 rather than read as empty, and a
 * configuration body over `CONFIG_BODY_LIMIT_BYTES` with 413.
 */
function schemaBody(ctx: Context, spec: RouteSpec<any, any, any>): unknown {
  if (!hasBody(ctx)) return {};
  if (!spec.largeBody && (ctx.request.length ?? 0) > CONFIG_BODY_LIMIT_BYTES) throw new PayloadTooLargeError(CONFIG_BODY_LIMIT_BYTES);
  if (!ctx.request.is('json', '+json')) {
    throw new UnsupportedMediaTypeError(
      `Content-Type "${ctx.request.type || '(none)'}" is not accepted: send JSON with Content-Type: application/json`,
    );
  }
  return (ctx.request as { body?: unknown }).body;
}

/**
 * The body of a `jsonBody: 'any'` route as sent. The body parser (non-strict JSON) leaves a request without a body,
 * or of a JSON type it does not know, unparsed (`undefined`), and reads an empty body as '', like the JSON string
 * `""`, which takes at least 2 bytes.
 */
function anyJsonBody(ctx: Context): unknown {
  const isJson = ctx.request.is('json', '+json');
  if (isJson === null || (!ctx.request.type && ctx.request.length === 0)) throw new BadRequestError('A JSON body is required', 'body');
  const body = (ctx.request as { body?: unknown }).body;
  if (isJson === false || body === undefined) {
    throw new UnsupportedMediaTypeError(
      `Content-Type "${ctx.request.type || '(none)'}" is not accepted: send JSON with Content-Type: application/json`,
    );
  }
  if (body === '' && !((ctx.request.length ?? 0) >= 2)) throw new BadRequestError('The body is empty: send a JSON value', 'body');
  return body;
}
