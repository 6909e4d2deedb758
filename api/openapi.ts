/**
 * OpenAPI 3.1 document built from the route registry: the same schema objects ajv validates with.
 * Schemas with an `$id` are lifted into `components.schemas` and referenced.
 */
import type { RouteRegistry, RouteSpec } from './route-registry.js';
import { AUTH_RESPONSES, ErrorSchema } from './schemas/common.schema.js';
import { sharedSchemas, type JsonSchema } from './validation.js';

export type OpenApiDocument = Record<string, unknown>;

class ComponentCollector {
  readonly schemas: Record<string, JsonSchema> = { Error: withoutId(ErrorSchema) };

  constructor() {
    for (const schema of sharedSchemas) {
      const id = schema.$id as string;
      this.schemas[id] = rewriteRefs(withoutId(schema), `#/components/schemas/${id}`) as JsonSchema;
    }
  }

  /** The schema, or a reference to it when it has an `$id`; schemas with an `$id` nested in it are lifted the same way. */
  ref(schema: JsonSchema): JsonSchema {
    const id = schema.$id;
    if (typeof id !== 'string') return this.lift(rewriteRefs(schema)) as JsonSchema;
    // `#/$defs/...` inside a schema means its own definitions; in the document `#` is the document itself.
    this.schemas[id] ??= this.lift(rewriteRefs(withoutId(schema), `#/components/schemas/${id}`)) as JsonSchema;
    return { $ref: `#/components/schemas/${id}` };
  }

  private lift(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.lift(v));
    if (!value || typeof value !== 'object') return value;
    if (typeof (value as JsonSchema).$id === 'string') return this.ref(value as JsonSchema);
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key === 'example' ? v : this.lift(v)]));
  }
}

/**
 * `{ $ref: 'QueryFilter' }` (an ajv id) → `{ $ref: '#/components/schemas/QueryFilter' }`; a component's references
 * to its own `$defs` are rooted at `base`, the component.
 */
function rewriteRefs(value: unknown, base?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, base));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (key !== '$ref' || typeof v !== 'string') return [key, rewriteRefs(v, base)];
      if (sharedSchemas.some((s) => s.$id === v)) return [key, `#/components/schemas/${v}`];
      return [key, base && v.startsWith('#/$defs/') ? `${base}${v.slice(1)}` : v];
    }),
  );
}

/**
 * Adds `discriminator.mapping` to every discriminated `oneOf` whose branches are component references, from each
 * branch's `const` (or `enum`) of the property: generators select a branch by it (ajv, which refuses `mapping`,
 * validates with the route schemas, which have none).
 */
function mapDiscriminators(value: unknown, schemas: Record<string, JsonSchema>): void {
  if (Array.isArray(value)) return value.forEach((v) => mapDiscriminators(v, schemas));
  if (!value || typeof value !== 'object') return;
  const schema = value as { discriminator?: { propertyName: string; mapping?: Record<string, string> }; oneOf?: JsonSchema[] };
  if (schema.discriminator && !schema.discriminator.mapping && schema.oneOf?.every((branch) => typeof branch.$ref === 'string')) {
    const mapping: Record<string, string> = {};
    for (const branch of schema.oneOf) {
      const ref = branch.$ref as string;
      const properties = schemas[ref.replace('#/components/schemas/', '')]?.properties as Record<string, JsonSchema> | undefined;
      const property = properties?.[schema.discriminator.propertyName];
      for (const tag of property?.const !== undefined ? [property.const] : ((property?.enum as unknown[]) ?? [])) mapping[String(tag)] = ref;
    }
    schema.discriminator = { ...schema.discriminator, mapping };
  }
  Object.values(value).forEach((v) => mapDiscriminators(v, schemas));
}

function withoutId(schema: JsonSchema): JsonSchema {
  const { $id: _id, ...rest } = schema;
  return rest;
}

/** `/workflows/:workflowId` → `/workflows/{workflowId}` */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const IF_MATCH =
  'Optional optimistic concurrency: the ETag of the document as you last read it (or `*`). When the document has changed since, ' +
  'the write is refused with 412 `precondition_failed` and nothing changes.';
const IF_NONE_MATCH = 'The ETag of your copy: 304 without a body while the document is unchanged.';
const ETAG_HEADER = {
  ETag: { description: 'Version tag of the document: send it as If-Match to write only that version', schema: { type: 'string' } },
};

/** ETag headers and the 304 / 412 answers of the routes that carry a document's version (`RouteSpec.etag`). */
function etagResponses(spec: RouteSpec<any, any, any>, responses: Record<string, unknown>): void {
  if (!spec.etag) return;
  const success = String(spec.status ?? 200);
  const ok = responses[success] as Record<string, unknown> | undefined;
  if (ok) responses[success] = { ...ok, headers: ETAG_HEADER };
  if (spec.etag === true) responses['304'] = { description: 'Not modified: the If-None-Match tag is current', headers: ETAG_HEADER };
  else
    responses['412'] = {
      description: 'The If-Match tag is not the current version: nothing was written',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
}

function parameters(spec: RouteSpec<any, any, any>): unknown[] {
  const result: unknown[] = [];
  for (const [location, schema] of [
    ['path', spec.params],
    ['query', spec.query],
    ['header', spec.headers],
  ] as const) {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema?.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      result.push({ name, in: location, required: location === 'path' || required.has(name), schema: property });
    }
  }
  if (spec.etag === true)
    result.push({ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' }, description: IF_NONE_MATCH });
  if (typeof spec.etag === 'function')
    result.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' }, description: IF_MATCH });
  for (const match of spec.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const name = match[1];
    if (!spec.params?.properties || !(name! in (spec.params.properties as object))) {
      result.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  return result;
}

function operation(spec: RouteSpec<any, any, any>, components: ComponentCollector): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    // A failure a route lists answers the error envelope like any other.
    const schema = response.schema
      ? components.ref(response.schema)
      : Number(status) >= 400 && !response.contentTypes
        ? { $ref: '#/components/schemas/Error' }
        : undefined;
    responses[status] = {
      description: response.description,
      ...(schema && { content: { 'application/json': { schema } } }),
      ...(response.contentTypes && {
        content: Object.fromEntries(response.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
      }),
    };
  }
  etagResponses(spec, responses);
  const errors: Partial<Record<number | 'default', { description: string }>> = {};
  if (spec.body || spec.query || spec.params) errors[400] = { description: 'Invalid input; `details.issues` lists each problem' };
  if (spec.scope !== 'public') errors[401] = AUTH_RESPONSES[401];
  if (spec.scope === 'U') errors[403] = AUTH_RESPONSES[403];
  // Other failures (404, 409, 413, 415, 429, 503...) are listed where a route declares them; any of them has the
  // error envelope, which `default` says for the rest.
  errors.default = { description: 'Any other error: `{ code, message, details? }`' };
  for (const [status, response] of Object.entries(errors)) {
    responses[status] ??= { ...response, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.tag],
    'x-key-scope': spec.scope,
    security:
      spec.scope === 'public'
        ? []
        : spec.scope === 'U'
          ? [{ userApiKey: [] }, { session: [] }]
          : [{ userApiKey: [] }, { accountApiKey: [] }, { session: [] }],
    parameters: parameters(spec),
    ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: components.ref(spec.body) } } } }),
    ...(spec.rawBody && {
      requestBody: { required: true, description: spec.rawBody.description, content: { 'application/json': { schema: spec.rawBody.schema } } },
    }),
    ...(spec.multipart && { requestBody: { required: true, content: { 'multipart/form-data': { schema: spec.multipart } } } }),
    responses,
  };
}

/**
 * Builds the document for the `/public/v1` routes of `registry`; `outside` adds routes served under another base URL
 * (the inbound webhook call), whose paths carry their own `servers`.
 */
export function buildOpenApi(registry: RouteRegistry, serverUrl: string, outside?: { registry: RouteRegistry; serverUrl: string }): OpenApiDocument {
  const components = new ComponentCollector();
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (routes: RouteRegistry, servers?: unknown[]) => {
    for (const spec of routes.routes) {
      const path = openApiPath(spec.path);
      paths[path] ??= servers ? { servers } : {};
      paths[path]![spec.method] = operation(spec, components);
    }
  };
  add(registry);
  if (outside) add(outside.registry, [{ url: outside.serverUrl }]);
  mapDiscriminators(components.schemas, components.schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentry public API',
      version: '1.0.0',
      description:
        'Every request carries `Authorization: Bearer <API_KEY>`. USER keys act for one user and are accepted everywhere; ' +
        'GENERAL keys act for the account and are refused (403) on endpoints whose `x-key-scope` is `U`. ' +
        'A person signed in with `POST /sessions` (the console) is authenticated by the `agentry_session` cookie instead, ' +
        "as a USER key of theirs; a write so authenticated must send the header `X-CSRF-Token` with the session's token. " +
        'Errors are `{ code, message, details? }`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        userApiKey: { type: 'http', scheme: 'bearer', description: 'USER key: tied to one user' },
        accountApiKey: { type: 'http', scheme: 'bearer', description: 'GENERAL key: account-wide' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'agentry_session',
          description: 'A signed-in person (POST /sessions), as a USER key of theirs; writes also send X-CSRF-Token',
        },
      },
    },
  };
}
