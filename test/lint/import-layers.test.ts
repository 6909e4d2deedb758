/**
 * The layers of the house (README, Layout): imports point down lib → db → integrations → nodes → activities and
 * workflows → worker, api and launcher, enforced by ESLint (`house/import-layers`, eslint-rules/import-layers.js);
 * this proves the rule bites, and that no value import runs in a circle anywhere in the project.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { projectRoot } from '../setup/harness.js';

const RULE = 'house/import-layers';

describe('import layers', function () {
  this.timeout(30_000);
  const eslint = new ESLint({ cwd: projectRoot });
  const lint = async (file: string, code: string) =>
    (await eslint.lintText(code, { filePath: join(projectRoot, file) }))[0]!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);

  it('refuses an import of a higher layer or of a sibling layer, naming both folders', async () => {
    expect(await lint('lib/example.ts', "import { x } from '../db/orm.js';\nexport const y = x;")).to.have.length(1);
    expect(await lint('db/agents/example.ts', "import { x } from '../../nodes/registry.js';\nexport const y = x;")).to.deep.equal([
      'db/ may not import nodes/ (a higher layer): imports point down lib → db → integrations → nodes → activities, workflows → worker, api, launcher',
    ]);
    expect(await lint('integrations/ai/example.ts', "import type { X } from '../../nodes/node-module.js';\nexport type Y = X;")).to.have.length(1);
    expect(await lint('api/example.ts', "import { x } from '../worker/main.js';\nexport const y = x;")).to.have.length(1);
    expect(await lint('activities/example.ts', "export { x } from '../workflows/index.js';")).to.have.length(1);
  });

  it('allows imports of the own folder and of lower layers, and type-only imports of activities by workflows', async () => {
    expect(
      await lint(
        'nodes/example.ts',
        "import { a } from '../integrations/ai/ai-gateway.js';\nimport { b } from '../db/orm.js';\nimport { c } from './registry.js';\nexport const d = [a, b, c];",
      ),
    ).to.deep.equal([]);
    expect(
      await lint('workflows/example.ts', "import type { Activities } from '../activities/index.js';\nexport type A = Activities;"),
    ).to.deep.equal([]);
    expect(await lint('api/example.ts', "import { x } from '../nodes/registry.js';\nexport const y = x;")).to.deep.equal([]);
  });

  it("holds a node's unit test beside it to the layers of its folder; the test helpers are outside the layers", async () => {
    expect(
      await lint(
        'nodes/example.node.test.ts',
        "import { a } from '../test/setup/node-unit.js';\nimport { b } from '../lib/errors.js';\nimport { c } from './example.node.js';\nexport const d = [a, b, c];",
      ),
    ).to.deep.equal([]);
    expect(await lint('nodes/example.node.test.ts', "import { x } from '../activities/index.js';\nexport const y = x;")).to.have.length(1);
  });

  it('keeps lib/ pure: no database, Temporal or HTTP client and no network or file I/O there, types allowed', async () => {
    const restricted = async (code: string) =>
      (await eslint.lintText(code, { filePath: join(projectRoot, 'lib/example.ts') }))[0]!.messages
        .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((m) => m.message);
    expect(await restricted("import { Connection } from '@temporalio/client';\nexport const c = Connection;")).to.have.length(1);
    expect(await restricted("import { request } from 'node:https';\nexport const r = request;")).to.have.length(1);
    expect(await restricted("import { MikroORM } from '@mikro-orm/postgresql';\nexport const m = MikroORM;")).to.have.length(1);
    expect(
      await restricted(
        "import type { ScheduleSpec } from '@temporalio/client';\nimport { isIP } from 'node:net';\nimport { createHash } from 'node:crypto';\nexport type S = ScheduleSpec;\nexport const f = [isIP, createHash];",
      ),
    ).to.deep.equal([]);
  });

  it('finds no circle of value imports between the files of the project', () => {
    const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: projectRoot, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('test/') && !f.startsWith('db/migrations/'));
    const known = new Set(files);
    const edges = new Map<string, string[]>();
    const valueImport = /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
    for (const file of files) {
      const text = readFileSync(join(projectRoot, file), 'utf8');
      const targets: string[] = [];
      for (const match of text.matchAll(valueImport)) {
        if (/^(import|export)\s*\{[^}]*\}/.test(match[0]) && /\{\s*(type\s+[\w$]+\s*,?\s*)+\}/.test(match[0])) continue; // { type A, type B }
        const target = relative(projectRoot, resolve(dirname(join(projectRoot, file)), match[1]!.replace(/\.js$/, '.ts')));
        if (known.has(target)) targets.push(target);
      }
      edges.set(file, targets);
    }
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);
    expect(circles, circles.join('\n')).to.deep.equal([]);
  });
});
