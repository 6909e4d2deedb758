import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { OPERATION_VERBS } from '../../api/route-registry.js';
import { schemaViolations } from '../setup/contract.js';
import { harness, projectRoot } from '../setup/harness.js';

/** Keywords whose value maps names to schemas (or paths to path items): a name there may be `example`. */
const NAME_MAPS = ['properties', 'patternProperties', '$defs', 'schemas', 'paths', 'responses', 'content', 'securitySchemes'];

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

const served = async (): Promise<Record<string, any>> => (await fetch(`${harness().baseUrl}/openapi.json`)).json() as Promise<Record<string, any>>;

/** The pairs of SPEC.md's paths that redocly.yaml accepts as ambiguous, as `first and second`. */
async function acceptedAmbiguousPairs(): Promise<string[]> {
  const config = await readFile(join(projectRoot, 'redocly.yaml'), 'utf8');
  const list = config.slice(config.indexOf('x-spec-ambiguous-paths:'));
  return [...list.matchAll(/^ {2}- \['([^']+)', '([^']+)'\]$/gm)].map((m) => `${m[1]} and ${m[2]}`);
}

/** Every operation of the document: its id, method and path. */
function operations(doc: Record<string, any>): { id: string; route: string }[] {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => method !== 'servers')
      .map(([method, operation]) => ({ id: operation.operationId as string, route: `${method.toUpperCase()} ${path}` })),
  );
}

describe('API description: lint, examples, operation ids', () => {
  it('passes Redocly lint (recommended rules) with no problem but the ambiguous paths redocly.yaml lists', async function () {
    this.timeout(30_000);
    const dir = await mkdtemp(join(tmpdir(), 'agentry-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(await served()));
      const redocly = join(projectRoot, 'node_modules', '.bin', 'redocly');
      const args = ['lint', file, '--config', join(projectRoot, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'];
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      // Exit status 1 on errors: the report on stdout says which.
      const stdout = await promisify(execFile)(redocly, args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 }).then(
        (result) => result.stdout,
        (error: { stdout?: string; stderr?: string }) => {
          if (!error.stdout) throw new Error(`redocly lint failed: ${error.stderr}`);
          return error.stdout;
        },
      );
      const report = JSON.parse(stdout) as { totals: { errors: number }; problems: LintProblem[] };
      const accepted = await acceptedAmbiguousPairs();
      expect(accepted).to.have.length.greaterThan(0);
      const ambiguous = report.problems.filter((p) => p.ruleId === 'no-ambiguous-paths');
      const others = report.problems.filter((p) => p.ruleId !== 'no-ambiguous-paths');
      expect(others.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).to.deep.equal([]);
      expect(report.totals.errors).to.equal(0);
      const pairs = ambiguous.map((p) => (/`([^`]+)` and `([^`]+)`/.exec(p.message) ?? []).slice(1).join(' and '));
      expect(pairs.sort(), 'ambiguous paths: redocly.yaml lists the ones SPEC.md fixes').to.deep.equal([...accepted].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has examples that each validate against their own schema', async () => {
    const doc = await served();
    const examples: { pointer: string; example: unknown }[] = [];
    /** `names`: the keys of `value` are names (of properties, of components), not keywords. */
    const walk = (value: unknown, pointer: string, names = false): void => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${pointer}/${i}`));
      if (!value || typeof value !== 'object') return;
      const node = value as Record<string, unknown>;
      // A media type's or parameter's example is of its `schema`; a schema's is of the schema itself.
      if (!names && 'example' in node) examples.push({ pointer: 'schema' in node ? `${pointer}/schema` : pointer, example: node.example });
      for (const [key, v] of Object.entries(node)) {
        const child = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (names) walk(v, child);
        else if (!['example', 'examples', 'default', 'const', 'enum'].includes(key)) walk(v, child, NAME_MAPS.includes(key));
      }
    };
    walk(doc, '');
    expect(examples.map(({ pointer }) => pointer)).to.include.members(['/components/schemas/Row', '/components/schemas/AggregationResult']);
    expect(examples.flatMap(({ pointer, example }) => schemaViolations(pointer, example))).to.deep.equal([]);
  });

  it('names every operation with a unique verb-first camelCase id, as the typed client does', async () => {
    const ops = operations(await served());
    const badForm = ops.filter(({ id }) => !/^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(id ?? '') || !OPERATION_VERBS.some((verb) => id.startsWith(verb)));
    expect(
      badForm.map(({ id, route }) => `${route}: ${id ?? 'no operationId'}`),
      `operation ids start with one of ${OPERATION_VERBS.join(', ')}`,
    ).to.deep.equal([]);
    const seen = new Map<string, string>();
    const repeated = ops
      .filter(({ id, route }) => seen.has(id) || !seen.set(id, route))
      .map(({ id, route }) => `${route} and ${seen.get(id)}: ${id}`);
    expect(repeated).to.deep.equal([]);
    // The ones the README and generators' users meet first.
    const ids = new Set(ops.map(({ id }) => id));
    for (const id of ['listRecordTypes', 'updateRecordType', 'sendConversationMessage', 'getAgent', 'createWorkflow', 'publishFlow']) {
      expect(ids, id).to.include(id);
    }
  });

  it('names every branch of a discriminated union: FlowNode and WorkflowNode select <Type>Node by type', async () => {
    const schemas = (await served()).components.schemas;
    for (const union of ['FlowNode', 'WorkflowNode']) {
      const { oneOf, discriminator } = schemas[union];
      expect(
        oneOf.every((branch: { $ref?: string }) => branch.$ref?.startsWith('#/components/schemas/')),
        union,
      ).to.equal(true);
      expect(Object.values(discriminator.mapping).sort()).to.deep.equal(oneOf.map((branch: { $ref: string }) => branch.$ref).sort());
    }
    expect(schemas.FlowNode.discriminator.mapping.SAY_AI).to.equal('#/components/schemas/SayAiNode');
    expect(schemas.SayAiNode.properties.data).to.deep.equal({ $ref: '#/components/schemas/SayAiNodeData' });
    expect(schemas.WorkflowNode.discriminator.mapping.SAY_AI).to.equal(undefined);
  });
});
