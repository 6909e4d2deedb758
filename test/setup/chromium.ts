/**
 * Debian's Chromium for the browser tests: `/usr/bin/chromium`, installed with apt when missing and the test runs as
 * root with a working apt. Otherwise the reason it is unavailable, for the test to skip with.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags that keep a test browser quiet: no sandbox (containers run as root), no GPU, no calls home. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function run(command: string, args: string[], timeoutMs: number): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: timeoutMs, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return result.status === 0;
}

/** The browser's path, or why there is none. */
export function ensureChromium(): { path: string } | { reason: string } {
  if (existsSync(CHROMIUM)) return { path: CHROMIUM };
  if (process.getuid?.() !== 0) return { reason: `${CHROMIUM} is missing and the tests do not run as root to install it (apt-get install chromium)` };
  if (!existsSync('/usr/bin/apt-get')) return { reason: `${CHROMIUM} is missing and this system has no apt-get to install it` };
  if (!run('apt-get', ['update'], 180_000)) return { reason: `${CHROMIUM} is missing and apt-get update failed (no network or mirror?)` };
  if (!run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], 300_000) || !existsSync(CHROMIUM)) {
    return { reason: `${CHROMIUM} is missing and apt-get install chromium failed` };
  }
  return { path: CHROMIUM };
}
