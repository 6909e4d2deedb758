/** Runs the admin command line as an operator would: `npm run --silent admin -- ...args`, on the test database. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { harness, projectRoot, TEST_SETTINGS_KEY } from './harness.js';

const run = promisify(execFile);

export async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: harness().databaseUrl, SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
