/**
 * Every date and time parameter of the served OpenAPI document (query parameters and request body fields, through
 * `$ref`s and discriminated `oneOf` branches such as node data) refuses impossible calendar values: month 13, day 0,
 * 30 February, 29 February of a common year, hour 24, minute or second 60. Each answers 400 `bad_request` with an
 * issue naming the parameter, and a refused write changes nothing.
 *
 * Reproducible like write-operations.test.ts: FUZZ_RUNS values per parameter (default 3) and FUZZ_SEED.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { call, newAccount } from '../setup/http.js';
import { accountFingerprint, fuzzFixture, pathFor, type FuzzFixture } from './fixture.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const DATE_FORMATS = new Set(['date', 'date-time', 'date-bound']);

type Schema = Record<string, any>;
type Step = string | number;

/** A date parameter inside a schema: where it is, its format, and the body around it (discriminator values). */
interface Site {
  path: Step[];
  format: string;
  template: unknown;
}

function dateFormatOf(schema: Schema): string | undefined {
  const format = schema.format ?? schema.then?.format;
  return DATE_FORMATS.has(format) ? format : undefined;
}

function sitesIn(schema: Schema, components: Record<string, Schema>, refs: string[] = []): Site[] {
  if (schema.$ref) {
    if (refs.includes(schema.$ref)) return [];
    const resolved = components[String(schema.$ref).replace('#/components/schemas/', '')] ?? {};
    return sitesIn(resolved, components, [...refs, schema.$ref]);
  }
  const format = dateFormatOf(schema);
  const sites: Site[] = format ? [{ path: [], format, template: undefined }] : [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    for (const site of sitesIn(property, components, refs)) {
      sites.push({ path: [name, ...site.path], format: site.format, template: { [name]: site.template } });
    }
  }
  if (schema.items && typeof schema.items === 'object') {
    for (const site of sitesIn(schema.items, components, refs))
      sites.push({ path: [0, ...site.path], format: site.format, template: [site.template] });
  }
  for (const branch of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])] as Schema[]) {
    // A branch may be a named schema (`<Type>Node`): its discriminator value is in the schema it names.
    const named = branch.$ref ? (components[String(branch.$ref).replace('#/components/schemas/', '')] ?? {}) : branch;
    const consts = Object.fromEntries(
      Object.entries((named.properties ?? {}) as Record<string, Schema>)
        .filter(([, p]) => 'const' in p)
        .map(([name, p]) => [name, p.const]),
    );
    for (const site of sitesIn(branch, components, refs)) sites.push({ ...site, template: merge(consts, site.template) });
  }
  return sites;
}

function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const merged: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b)) merged[k] = merge(merged[k], v);
    return merged;
  }
  return b;
}

/** The template with `value` placed at `path`. */
function bodyWith(site: Site, value: string): unknown {
  const root = structuredClone(site.template ?? {}) as Record<Step, unknown>;
  let node: Record<Step, unknown> = root;
  site.path.forEach((step, i) => {
    if (i === site.path.length - 1) node[step] = value;
    else {
      node[step] ??= typeof site.path[i + 1] === 'number' ? [] : {};
      node = node[step] as Record<Step, unknown>;
    }
  });
  return root;
}

/** How validation names a body path in `details.issues`: `nodes[0].data.startDate`. */
const issuePath = (path: Step[]) => path.reduce<string>((p, s) => (typeof s === 'number' ? `${p}[${s}]` : p ? `${p}.${s}` : s), '');

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
const year = fc.integer({ min: 1900, max: 2200 });

/** `YYYY-MM-DD` of a day that does not exist: month 0 or 13+, day 0, or a day past the month's end. */
const impossibleDate: fc.Arbitrary<string> = fc
  .oneof(
    fc.tuple(year, fc.integer({ min: 13, max: 99 }), fc.integer({ min: 1, max: 28 })),
    fc.tuple(year, fc.constant(0), fc.integer({ min: 1, max: 28 })),
    fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.constant(0)),
    fc
      .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3 }))
      .map(([y, m, past]): [number, number, number] => [y, m, Math.min(daysIn(y, m) + past, 99)])
      .filter(([y, m, d]) => d > daysIn(y, m)),
    fc.constant<[number, number, number]>([2025, 2, 29]),
  )
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);

const realDate = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);
const realTime = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${pad(h)}:${pad(m)}:00`);
const impossibleTime = fc
  .oneof(
    fc.tuple(fc.integer({ min: 24, max: 99 }), fc.integer({ min: 0, max: 59 }), fc.constant(0)),
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 60, max: 99 }), fc.constant(0)),
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 60, max: 99 })),
    fc.constant<[number, number, number]>([23, 59, 60]), // a leap second: RFC 3339 has it, a Date cannot hold it
  )
  .map(([h, m, s]) => `${pad(h)}:${pad(m)}:${pad(s)}`);
const offset = fc.constantFrom('Z', '+02:00', '-05:30');

/** A date-time of an impossible day or an impossible time of a real day. */
const impossibleDateTime: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(impossibleDate, realTime, offset).map(([d, t, o]) => `${d}T${t}${o}`),
  fc.tuple(realDate, impossibleTime, offset).map(([d, t, o]) => `${d}T${t}${o}`),
);

/** The brief's own examples come first, whatever the seed. */
const EXAMPLES = ['2026-13-45', '2026-02-30', '2026-01-01T25:61:00Z'];
const impossibleFor = (format: string): fc.Arbitrary<string> =>
  format === 'date' ? impossibleDate : format === 'date-time' ? impossibleDateTime : fc.oneof(impossibleDate, impossibleDateTime);
const examplesFor = (format: string) => EXAMPLES.filter((e) => format !== 'date' || !e.includes('T'));

interface DateParameter {
  method: string;
  path: string;
  in: 'query' | 'body';
  site: Site;
  name: string;
}

type Operation = { parameters?: { name: string; in: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } };

function dateParameters(doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }): DateParameter[] {
  const components = doc.components.schemas;
  return Object.entries(doc.paths)
    .filter(([, ops]) => !('servers' in ops))
    .flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => {
        const query = (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .flatMap((p) => sitesIn(p.schema, components).map((site) => ({ method, path, in: 'query' as const, site, name: `query.${p.name}` })));
        const schema = op.requestBody?.content['application/json']?.schema;
        const body = schema
          ? sitesIn(schema, components).map((site) => ({ method, path, in: 'body' as const, site, name: issuePath(site.path) }))
          : [];
        return [...query, ...body];
      }),
    );
}

describe('every date parameter of the document refuses impossible calendar dates', function () {
  this.timeout(600_000);
  let fixture: FuzzFixture;
  let parameters: DateParameter[];

  before(async () => {
    fixture = await fuzzFixture(await newAccount('Fuzz dates'));
    parameters = dateParameters((await call('GET', '/openapi.json')).body);
  });

  it('finds the date parameters of queries, bodies and node data', () => {
    const found = parameters.map((p) => `${p.method.toUpperCase()} ${p.path} ${p.name}`);
    for (const expected of [
      'GET /agents/{agentId}/analytics query.endDate',
      'GET /agents/{agentId}/conversations query.startDate',
      'GET /workflows/{workflowId}/analytics query.startDate',
      'GET /workflows/{workflowId}/logs query.end_date',
      'POST /workflows/{workflowId}/nodes data.startDate',
    ]) {
      expect(found).to.include(expected);
    }
    expect(found.some((f) => f.endsWith(' dueDate'))).to.equal(true);
  });

  it('answers 400 naming the parameter, and a refused write changes nothing', async () => {
    const failures: string[] = [];
    for (const parameter of parameters) {
      const url = pathFor(parameter.path, fixture);
      const before = await accountFingerprint(fixture.accountId);
      const attempt = async (value: string) => {
        const target =
          parameter.in === 'query' ? `${url}${url.includes('?') ? '&' : '?'}${parameter.name.slice(6)}=${encodeURIComponent(value)}` : url;
        const res = await call(parameter.method.toUpperCase(), target, {
          key: fixture.userKey,
          ...(parameter.in === 'body' && { body: bodyWith(parameter.site, value) }),
        });
        const issues: { path: string }[] = res.body?.details?.issues ?? [];
        if (res.status !== 400 || res.body.code !== 'bad_request' || !issues.some((i) => i.path === parameter.name)) {
          failures.push(`${parameter.method.toUpperCase()} ${parameter.path} ${parameter.name}=${value} → ${res.status} ${res.text.slice(0, 300)}`);
        }
      };
      for (const value of examplesFor(parameter.site.format)) await attempt(value);
      await fc.assert(
        fc.asyncProperty(impossibleFor(parameter.site.format), async (value) => {
          await attempt(value);
          return true;
        }),
        { numRuns: RUNS, seed: SEED },
      );
      if ((await accountFingerprint(fixture.accountId)) !== before)
        failures.push(`${parameter.method.toUpperCase()} ${parameter.path}: a refused request changed data`);
    }
    expect(failures, `seed ${SEED}:\n${failures.join('\n')}`).to.deep.equal([]);
  });
});
