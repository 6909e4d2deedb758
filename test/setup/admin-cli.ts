/**
 * Runs the admin command line on the test database. `admin` runs the command in this process (`runAdmin`, what
 * `scripts/admin.ts` runs when started), sparing a Node.js start-up per command; `adminViaNpm` runs
 * `npm run --silent admin -- ...args` as an operator types it, in a process of its own, so that path stays checked.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runAdmin as runAdminCommand, type AdminResult } from '../../scripts/admin.js';
import { harness, projectRoot, TEST_SETTINGS_KEY } from './harness.js';

const run = promisify(execFile);

const adminEnv = () => ({ ...process.env, DATABASE_URL: harness().databaseUrl, SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY });

async function runProcess(command: string, args: string[]): Promise<AdminResult> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: projectRoot,
      env: adminEnv(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export async function admin(...args: string[]): Promise<AdminResult> {
  return runAdminCommand(args, adminEnv());
}

/** The command with these variables changed (an empty value unsets one), e.g. another database or no settings key. */
export async function adminWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<AdminResult> {
  const merged: NodeJS.ProcessEnv = { ...adminEnv(), ...env };
  for (const [name, value] of Object.entries(env)) if (value === '') delete merged[name];
  return runAdminCommand(args, merged);
}

export async function adminViaNpm(...args: string[]): Promise<AdminResult> {
  return runProcess('npm', ['run', '--silent', 'admin', '--', ...args]);
}
