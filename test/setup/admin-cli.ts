/**
 * Runs the admin command line on the test database: `node --import tsx scripts/admin.ts ...args`, what
 * `npm run --silent admin -- ...args` runs once its install step has nothing to do (`adminViaNpm` goes through npm,
 * as an operator types it; one test keeps that path checked, the others spare npm's start-up).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { harness, projectRoot, TEST_SETTINGS_KEY } from './harness.js';

const run = promisify(execFile);

type AdminResult = { code: number; stdout: string; stderr: string };

async function runAdmin(command: string, args: string[]): Promise<AdminResult> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: harness().databaseUrl, SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export async function admin(...args: string[]): Promise<AdminResult> {
  return runAdmin(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args]);
}

export async function adminViaNpm(...args: string[]): Promise<AdminResult> {
  return runAdmin('npm', ['run', '--silent', 'admin', '--', ...args]);
}
