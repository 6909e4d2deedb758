/**
 * The response contract: every answer an API test receives through `call` is checked against the OpenAPI document
 * the API serves (status documented, content type, body schema), so the document cannot drift from the code. The
 * root hooks load the document once; `call` checks each response as it arrives, so a violation fails the test that
 * received it, with the operation and ajv's errors in the message.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface MediaType {
  schema?: unknown;
}
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface PathMatcher {
  pattern: RegExp;
  template: string;
  operations: Record<string, Operation>;
}

/** Where the document was served from, and what it says; built by `loadContract`. */
export interface Contract {
  paths: PathMatcher[];
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}

let contract: Contract | undefined;

/** Compiles the served document for `contractViolations`; called by the root hooks once the API listens. */
export function loadContract(doc: Record<string, any>): void {
  // OpenAPI 3.1 schemas are JSON Schema; `example` and the document's own keywords are annotations here.
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, discriminator: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(withoutDiscriminatorMappings(doc), 'openapi.json');
  const prefix = new URL((doc.servers as { url: string }[])[0]!.url).pathname;
  const paths = Object.entries(doc.paths as Record<string, Record<string, unknown>>).map(([template, item]) => ({
    template,
    // Paths with servers of their own (the inbound webhook) are served from the origin, not under the prefix.
    pattern: new RegExp(`^${item.servers ? '' : escape(prefix)}${escape(template).replace(/\\\{[^}]+\\\}/g, '[^/]+')}$`),
    operations: Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'servers')) as Record<string, Operation>,
  }));
  contract = { paths, ajv, validators: new Map() };
}

/**
 * The document without `discriminator.mapping`, which is for generators: ajv refuses it and selects the `oneOf`
 * branch by the discriminator property's `const` in each branch, the values the mapping lists.
 */
function withoutDiscriminatorMappings(doc: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(doc), (key, value) =>
    key === 'discriminator' && typeof value?.propertyName === 'string' ? { propertyName: value.propertyName } : value,
  );
}

/**
 * The ways `value` breaks the schema at `pointer` in the served document (`/components/schemas/Row`), empty when
 * it conforms: how the suite checks the document's own examples.
 */
export function schemaViolations(pointer: string, value: unknown): string[] {
  if (!contract) throw new Error('The contract is loaded by the root hooks');
  const validate = contract.ajv.compile({ $ref: `openapi.json#${pointer}` });
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${pointer}: ${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented operation of `method` on `pathname`, preferring fixed segments (`/rows/list`) over parameters. */
function operationOf(c: Contract, method: string, pathname: string): { template: string; operation: Operation } | undefined {
  const candidates = c.paths
    .filter((p) => p.pattern.test(pathname))
    .filter((p) => p.operations[method])
    .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const found = candidates[0];
  return found && { template: found.template, operation: found.operations[method]! };
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  if (documented === '*/*') return true;
  if (documented.endsWith('/*')) return actual.startsWith(documented.slice(0, -1));
  return documented === actual;
}

/**
 * The ways a response breaks the document, empty when it conforms. Requests to URLs the document does not describe
 * (`/openapi.json`, `/healthz`, an unknown path) are not checked.
 */
export function contractViolations(method: string, url: string, status: number, contentType: string | null, body: unknown, text: string): string[] {
  const c = contract;
  if (!c) return [];
  const found = operationOf(c, method.toLowerCase(), new URL(url).pathname);
  if (!found) return [];
  const { template, operation } = found;
  const where = `${method.toUpperCase()} ${template} → ${status}`;
  // `default` stands for the error statuses a route does not list; a success status must be listed.
  const key = operation.responses[String(status)] ? String(status) : status >= 400 && operation.responses.default ? 'default' : undefined;
  const response = key && operation.responses[key];
  if (!response) return [`${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!response.content) return text ? [`${where}: documented without a body, answered ${JSON.stringify(text.slice(0, 200))}`] : [];
  const type = Object.keys(response.content).find((documented) => mediaTypeMatches(documented, media));
  if (!type) return [`${where}: content type "${media}" is not documented (documented: ${Object.keys(response.content).join(', ')})`];
  if (type !== 'application/json') return [];
  const ref = `openapi.json#${pointer('', 'paths', template, method.toLowerCase(), 'responses', key!, 'content', type, 'schema')}`;
  let validate = c.validators.get(ref);
  if (!validate) {
    validate = c.ajv.compile({ $ref: ref });
    c.validators.set(ref, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
