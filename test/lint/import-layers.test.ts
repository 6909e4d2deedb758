/**
 * The layers of the house (README, Layout): imports point down lib → db → integrations → nodes → activities and
 * workflows → worker, api and launcher, enforced by ESLint (`house/import-layers`, eslint-rules/import-layers.js);
 * this proves the rule bites, and that no import, type-only ones included, runs in a circle anywhere in the project
 * (`house/import-cycles`, eslint-rules/import-cycles.js).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { projectRoot } from '../setup/harness.js';
import { findCircles } from '../../eslint-rules/import-cycles.js';

const RULE = 'house/import-layers';
const CYCLES = 'house/import-cycles';

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

  it('refuses an import that closes a circle, a type-only one too, naming the files it runs through', async () => {
    const file = 'db/tables/formulas/formula-scope.ts';
    const text = readFileSync(join(projectRoot, file), 'utf8');
    const circle = async (line: string) =>
      (await eslint.lintText(`${line}\n${text}`, { filePath: join(projectRoot, file) }))[0]!.messages
        .filter((m) => m.ruleId === CYCLES)
        .map((m) => m.message);
    expect(await circle("import type { FormulaCompiler } from './formula-compiler.js';")).to.deep.equal([
      'import circle: db/tables/formulas/formula-scope.ts → db/tables/formulas/formula-compiler.ts → db/tables/formulas/formula-scope.ts; move what both sides need into a module of its own',
    ]);
    expect(await circle("export { compileFormula } from './formula-compiler.js';")).to.have.length(1);
    expect(await circle("import type { Typed } from './formula-sql.js';")).to.deep.equal([]);
  });

  it('finds no circle of imports, type-only ones included, between the files of the project', () => {
    const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: projectRoot, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('db/migrations/'))
      .map((f) => join(projectRoot, f));
    const circles = findCircles(files);
    expect(circles, circles.join('\n')).to.deep.equal([]);
  });
});
