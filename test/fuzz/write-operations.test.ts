/**
 * Property-based test of every write operation of the served OpenAPI document, as a hostile client would call it:
 * bodies with NUL characters, nested too deeply, of the wrong JSON type, with unknown properties, not JSON at all,
 * not an object, or over the size limit. Each must answer 4xx with the error envelope, change nothing of the
 * account, and leave its resources working.
 *
 * Bounded for `npm test` and reproducible: FUZZ_RUNS cases per kind and operation (default 2), FUZZ_SEED (default
 * 20261123). Raise FUZZ_RUNS for a longer run; a failure prints the seed and the case.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { call, newAccount } from '../setup/http.js';
import { accountFingerprint, fuzzFixture, pathFor, type FuzzFixture } from './fixture.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; additionalProperties?: unknown; $ref?: string };
interface Operation {
  method: string;
  path: string;
  schema: Schema;
}

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  return schema.$ref ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? {}) : schema;
}

const JSON_TYPES = ['string', 'number', 'boolean', 'object', 'array', 'null'] as const;
const valueOf: Record<(typeof JSON_TYPES)[number], fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 20 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
  array: fc.array(fc.integer(), { maxLength: 3 }),
  null: fc.constant(null),
};

/** A value of a JSON type the property does not accept (undefined when it accepts any). */
function wrongValue(property: Schema): fc.Arbitrary<unknown> | undefined {
  const declared = property.type === undefined ? [] : Array.isArray(property.type) ? property.type : [property.type];
  if (!declared.length) return undefined;
  const accepted = new Set(declared.flatMap((t) => (t === 'integer' ? ['number'] : [t])));
  const others = JSON_TYPES.filter((t) => !accepted.has(t));
  return others.length ? fc.oneof(...others.map((t) => valueOf[t])) : undefined;
}

const deep = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { nested: value };
  return value;
};

/** One hostile request: a body (JSON, or raw text with its content type) and the statuses it may answer. */
interface BadCase {
  kind: string;
  body?: unknown;
  raw?: { text: string; type: string };
  expect: number[];
}

function cases(op: Operation, components: Record<string, Schema>): fc.Arbitrary<BadCase>[] {
  const schema = resolve(op.schema, components);
  const properties = Object.entries(schema.properties ?? {}).map(([name, p]) => [name, resolve(p, components)] as const);
  const names = properties.length ? properties.map(([name]) => name) : ['value'];
  const arbitraries: fc.Arbitrary<BadCase>[] = [
    fc
      .record({ name: fc.constantFrom(...names), before: fc.string({ maxLength: 8 }), after: fc.string({ maxLength: 8 }) })
      .map(({ name, before, after }) => ({
        kind: 'NUL character',
        body: { [name]: `${before}\u0000${after}` },
        expect: [400],
      })),
    fc.record({ name: fc.constantFrom(...names), levels: fc.integer({ min: 70, max: 3000 }) }).map(({ name, levels }) => ({
      kind: 'nested too deeply',
      body: { [name]: deep(levels) },
      expect: [400],
    })),
    fc.constantFrom<unknown>(null, [], 42, 'text', true).map((body) => ({ kind: 'not an object', body, expect: [400] })),
    fc.string({ maxLength: 30 }).map((text) => ({ kind: 'not JSON', raw: { text: `name=${text}`, type: 'text/plain' }, expect: [415] })),
    fc
      .integer({ min: 65 * 1024, max: 80 * 1024 })
      .map((size) => ({ kind: 'over the size limit', body: { [names[0]!]: 'x'.repeat(size) }, expect: [413] })),
  ];
  const typed = properties.flatMap(([name, property]) => {
    const wrong = wrongValue(property);
    return wrong ? [wrong.map((value) => ({ kind: `wrong type of ${name}`, body: { [name]: value }, expect: [400] }))] : [];
  });
  if (typed.length) arbitraries.push(fc.oneof(...typed));
  if (schema.additionalProperties === false) {
    arbitraries.push(
      fc.string({ minLength: 1, maxLength: 10 }).map((suffix) => ({ kind: 'unknown property', body: { [`zz_${suffix}`]: 1 }, expect: [400] })),
    );
  }
  return arbitraries;
}

describe('every write operation refuses hostile bodies with a 4xx and changes nothing', function () {
  this.timeout(600_000);
  let fixture: FuzzFixture;
  let operations: Operation[];
  let components: Record<string, Schema>;

  before(async () => {
    const account = await newAccount('Fuzz');
    fixture = await fuzzFixture(account);
    const doc = (await call('GET', '/openapi.json')).body;
    components = doc.components.schemas;
    // Paths with servers of their own are the inbound calls outside /public/v1 (signed trigger deliveries): their
    // refusals are tested where they are defined.
    operations = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>)
      .filter(([, ops]) => !('servers' in ops))
      .flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([method, op]) => ['post', 'put', 'patch', 'delete'].includes(method) && op.requestBody?.content['application/json'])
          .map(([method, op]) => ({ method, path, schema: op.requestBody!.content['application/json']!.schema })),
      );
  });

  it('covers the write operations of the document', () => {
    expect(operations.length).to.be.greaterThan(40);
  });

  it('answers each hostile body with a 4xx error envelope, persists nothing, and the account keeps working', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const url = pathFor(op.path, fixture);
      const before = await accountFingerprint(fixture.accountId);
      for (const arbitrary of cases(op, components)) {
        await fc.assert(
          fc.asyncProperty(arbitrary, async (bad) => {
            const res = await call(op.method.toUpperCase(), url, {
              key: fixture.userKey,
              ...(bad.raw ? { rawBody: bad.raw.text, headers: { 'content-type': bad.raw.type } } : { body: bad.body }),
            });
            const ok = bad.expect.includes(res.status) && typeof res.body?.code === 'string' && typeof res.body?.message === 'string';
            if (!ok) failures.push(`${op.method.toUpperCase()} ${op.path} (${bad.kind}) → ${res.status} ${res.text.slice(0, 200)}`);
            return true;
          }),
          { numRuns: RUNS, seed: SEED },
        );
      }
      const after = await accountFingerprint(fixture.accountId);
      if (after !== before) failures.push(`${op.method.toUpperCase()} ${op.path}: a refused request changed the account's data`);
    }
    expect(failures, `seed ${SEED}:\n${failures.join('\n')}`).to.deep.equal([]);
    const agentFlow = `/agents/${fixture.ids.agentId}/flows/${fixture.ids.flowId}?includeNodes=true`;
    for (const path of ['/tables/fuzz', `/workflows/${fixture.workflowId}?includeNodes=true`, '/objects/people', agentFlow]) {
      expect((await call('GET', path, { key: fixture.userKey })).status, path).to.equal(200);
    }
    expect((await call('POST', '/tables/fuzz/rows/list', { key: fixture.userKey, body: {} })).body.agentry).to.have.length(1);
  });
});
