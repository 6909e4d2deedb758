/**
 * Debian programs the tests need (Chromium for the browser tests, promtool for the alert rules): used where present,
 * installed with apt when missing and the tests run as root with a working apt; otherwise the reason it is
 * unavailable, for the test to skip with.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Runs apt-get under one file lock: the suite's shards (scripts/test-shards.mjs) may both install at once, and apt
 * refuses a second caller instead of waiting.
 */
function apt(args: string[], timeoutMs: number): boolean {
  const result = spawnSync('flock', ['/tmp/agentry-apt.lock', 'apt-get', ...args], {
    stdio: 'ignore',
    timeout: timeoutMs,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

let updated = false;

/** The program's path, installing Debian's `pkg` when it is missing, or why there is none. */
export function ensureDebianProgram(path: string, pkg: string): { path: string } | { reason: string } {
  if (existsSync(path)) return { path };
  if (process.getuid?.() !== 0) return { reason: `${path} is missing and the tests do not run as root to install it (apt-get install ${pkg})` };
  if (!existsSync('/usr/bin/apt-get')) return { reason: `${path} is missing and this system has no apt-get to install it` };
  if (!updated && !apt(['update'], 180_000)) return { reason: `${path} is missing and apt-get update failed (no network or mirror?)` };
  updated = true;
  if (!apt(['install', '-y', '--no-install-recommends', pkg], 600_000) || !existsSync(path)) {
    return { reason: `${path} is missing and apt-get install ${pkg} failed` };
  }
  return { path };
}
