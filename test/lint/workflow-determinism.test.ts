import { expect } from 'chai';
import { ESLint } from 'eslint';
import { projectRoot } from '../setup/harness.js';

/** The lint guard that keeps I/O out of Temporal workflow code: `npm test` runs ESLint first, and this proves the rule bites. */
describe('workflow determinism guard', function () {
  this.timeout(30_000);
  const eslint = new ESLint({ cwd: projectRoot });
  const lint = async (code: string) =>
    (await eslint.lintText(code, { filePath: `${projectRoot}/workflows/example.workflow.ts` }))[0]!.messages.map((m) => m.ruleId);

  it('refuses Node built-ins, I/O libraries and value imports of activities in workflows/', async () => {
    const rules = await lint(
      [
        "import { readFileSync } from 'node:fs';",
        "import http from 'http';",
        "import { MikroORM } from '@mikro-orm/core';",
        "import { createActivities } from '../activities/index.js';",
        'export const x = [readFileSync, http, MikroORM, createActivities, fetch];',
      ].join('\n'),
    );
    expect(rules.filter((r) => r === '@typescript-eslint/no-restricted-imports')).to.have.length.of.at.least(4);
    expect(rules).to.include('no-restricted-globals');
  });

  it('allows the Temporal workflow API and type-only imports of activities', async () => {
    const rules = await lint(
      [
        "import { proxyActivities } from '@temporalio/workflow';",
        "import type { Activities } from '../activities/index.js';",
        "export const a = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });",
      ].join('\n'),
    );
    expect(rules).to.deep.equal([]);
  });
});
