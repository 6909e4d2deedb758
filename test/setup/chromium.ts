/**
 * Debian's Chromium for the browser tests: `/usr/bin/chromium`, installed with apt when missing (test/setup/debian-package.ts).
 */
import { ensureDebianProgram } from './debian-package.js';

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

/** The browser's path, or why there is none. */
export function ensureChromium(): { path: string } | { reason: string } {
  return ensureDebianProgram(CHROMIUM, 'chromium');
}
