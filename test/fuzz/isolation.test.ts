/**
 * Isolation pass of the write operations: every POST, PUT, PATCH and DELETE of the served OpenAPI document whose path
 * names a resource, called with another account's USER key on the fixture account's resources, answers 404 whatever
 * the body (of the wrong JSON type, missing its required fields, with unknown properties, not JSON, a multipart form
 * without its boundary), the query or the headers, and changes nothing of the account. (A JSON body that does not
 * parse, or over BODY_LIMIT_BYTES, is refused as it is read, before the key is known: docs/api.md says so.)
 *
 * The operations come from the document, so a new route is covered as soon as it is declared; an operation left out
 * must be listed in SKIPPED with the reason.
 */
import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { accountFingerprint, fuzzFixture, pathFor, type FuzzFixture } from './fixture.js';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; $ref?: string };
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}
interface DocOperation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Operation {
  method: string;
  path: string;
  op: DocOperation;
}

/** Write operations with path parameters that this pass does not call, each with the reason. */
const SKIPPED: Record<string, string> = {};

/** One request: its body (JSON, or raw text with its content type), extra query and headers. */
interface BadCase {
  kind: string;
  body?: unknown;
  raw?: { text: string; type: string };
  query?: string;
  headers?: Record<string, string>;
}

const resolve = (schema: Schema, components: Record<string, Schema>): Schema =>
  schema.$ref ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? {}) : schema;

/** A value of a JSON type the property does not accept (undefined when it accepts any type). */
function wrongValue(property: Schema): unknown {
  const declared = property.type === undefined ? [] : Array.isArray(property.type) ? property.type : [property.type];
  if (!declared.length) return undefined;
  const candidates: [string, unknown][] = [
    ['object', { zz: 1 }],
    ['string', 'text'],
    ['number', 42],
    ['boolean', true],
    ['array', [1, 2]],
    ['null', null],
  ];
  const accepted = new Set(declared.flatMap((t) => (t === 'integer' ? ['number'] : [t])));
  return candidates.find(([type]) => !accepted.has(type))?.[1];
}

/** Query values and header values no declared parameter accepts: a NUL character, 3000 characters. */
function badQueryAndHeaders(op: DocOperation): Pick<BadCase, 'query' | 'headers'> {
  const params = op.parameters ?? [];
  const query = params.filter((p) => p.in === 'query').map((p) => `${encodeURIComponent(p.name)}=%00${'x'.repeat(3000)}`);
  const headers = Object.fromEntries(params.filter((p) => p.in === 'header').map((p) => [p.name, `"${'x'.repeat(3000)}"`]));
  return { query: ['zz=%00', ...query].join('&'), headers: { 'If-Match': '"stale"', ...headers } };
}

function casesOf({ op }: Operation, components: Record<string, Schema>): BadCase[] {
  const json = op.requestBody?.content['application/json'];
  const cases: BadCase[] = [
    { kind: 'not an object', body: 42 },
    { kind: 'not JSON', raw: { text: 'name=x', type: 'text/plain' } },
    { kind: 'malformed JSON', raw: { text: '{"name": ', type: 'application/json' } },
    { kind: 'JSON over the body limit', raw: { text: JSON.stringify({ name: 'x'.repeat(100 * 1024) }), type: 'application/json' } },
    { kind: 'bad query and headers', body: {}, ...badQueryAndHeaders(op) },
  ];
  if (op.requestBody?.content['multipart/form-data']) {
    cases.push({ kind: 'multipart without a boundary', raw: { text: 'x', type: 'multipart/form-data' } });
  }
  if (!json) return cases;
  const schema = resolve(json.schema, components);
  cases.push({ kind: 'unknown property', body: { zz_unknown: 1 } });
  if (schema.required?.length) cases.push({ kind: `missing ${schema.required.join(', ')}`, body: {} });
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const wrong = wrongValue(resolve(property, components));
    if (wrong !== undefined) cases.push({ kind: `wrong type of ${name}`, body: { [name]: wrong } });
  }
  return cases;
}

describe("another account's resources answer 404 to every write, whatever the request", function () {
  this.timeout(300_000);
  let fixture: FuzzFixture;
  let otherKey: string;
  let operations: Operation[];
  let components: Record<string, Schema>;

  before(async () => {
    fixture = await fuzzFixture(await newAccount('Isolation victim'));
    otherKey = (await newAccount('Isolation caller')).userKey;
    const doc = (await call('GET', '/openapi.json')).body;
    components = doc.components.schemas;
    // Paths with servers of their own are the inbound calls outside /public/v1 (webhook calls, signed deliveries, the
    // widget): no account key reaches them.
    operations = Object.entries(doc.paths as Record<string, Record<string, DocOperation>>)
      .filter(([path, ops]) => !('servers' in ops) && path.includes('{'))
      .flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
      );
  });

  it('covers every write operation with path parameters, or says why not', () => {
    const names = new Set(operations.map((o) => `${o.method} ${o.path}`));
    expect(
      Object.keys(SKIPPED).filter((name) => !names.has(name)),
      'skipped operations the document no longer has',
    ).to.deep.equal([]);
    expect(operations.length).to.be.greaterThan(100);
  });

  it('answers 404 to each bad request and changes nothing of the account', async () => {
    const failures: string[] = [];
    const before = await accountFingerprint(fixture.accountId);
    for (const operation of operations.filter((o) => !SKIPPED[`${o.method} ${o.path}`])) {
      // Every account has a People Object: the fixture's is named by its id, which only the fixture's account has.
      const url = pathFor(operation.path, fixture).replace(/^\/objects\/people(?=\/|$)/, `/objects/${fixture.ids.objectId}`);
      for (const bad of casesOf(operation, components)) {
        const res = await call(operation.method, bad.query ? `${url}${url.includes('?') ? '&' : '?'}${bad.query}` : url, {
          key: otherKey,
          headers: { ...bad.headers, ...(bad.raw ? { 'content-type': bad.raw.type } : {}) },
          ...(bad.raw ? { rawBody: bad.raw.text } : { body: bad.body }),
        });
        if (res.status !== 404 || res.body?.code !== 'not_found') {
          failures.push(`${operation.method} ${operation.path} (${bad.kind}) → ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(await accountFingerprint(fixture.accountId)).to.equal(before);
  });
});
