/**
 * docs/console.md's commands run as written: the `sh` blocks of "Signing in", in one bash shell and in order, against
 * the test platform, as a user with a password (`BASE`, `EMAIL`, `PASSWORD`, as a reader would set them).
 */
import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { ensureDebianProgram } from '../setup/debian-package.js';
import { harness } from '../setup/harness.js';
import { accountWithPassword, PASSWORD } from '../api/console/sessions.helpers.js';
import { shellBlocks } from './first-steps.test.js';

describe('the console guide runs as written', function () {
  this.timeout(60_000);

  it('signs in with curl and a cookie jar, is refused a write without the CSRF token, lists sessions, signs out everywhere', async function () {
    if ('reason' in ensureDebianProgram('/usr/bin/jq', 'jq')) this.skip();
    const blocks = shellBlocks('docs/console.md', '## Signing in');
    expect(blocks).to.have.length(2);
    const a = await accountWithPassword();
    const result = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-c', ['set -euo pipefail', ...blocks].join('\n')],
        { timeout: 30_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, BASE: harness().baseUrl, EMAIL: a.user.email, PASSWORD } },
        (error, stdout, stderr) => resolve({ status: error ? ((error.code as number | undefined) ?? -1) : 0, stdout, stderr }),
      ),
    );
    expect(result.status, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const codes = result.stdout.match(/^\d{3}$/gm);
    expect(codes).to.deep.equal(['403', '204', '401']);
    expect(result.stdout).to.include(`"email": "${a.user.email}"`);
    expect(result.stdout).to.include('"current": true');
  });
});
