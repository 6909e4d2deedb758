/** A host site on its own local origin that embeds the widget script, and a browser to visit it. */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_FLAGS, ensureChromium } from '../../setup/chromium.js';

/** Where browser tests leave files for people to look at (git-ignored). */
export const TEST_OUTPUT = join(import.meta.dirname, '..', '..', '..', 'test-output');

export interface HostSite {
  origin: string;
  /** The URL of a page embedding the widget of `agentId` from `api`, with extra script attributes and page CSS. */
  page(api: string, agentId: string, options?: { attributes?: Record<string, string>; css?: string }): string;
  close(): Promise<void>;
}

/** Serves `/page?...` on 127.0.0.1 at a free port: another origin than the API's. */
export async function hostSite(): Promise<HostSite> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    const api = url.searchParams.get('api') ?? '';
    const attributes = JSON.parse(url.searchParams.get('attributes') ?? '{}') as Record<string, string>;
    const attrs = Object.entries(attributes)
      .map(([name, value]) => ` data-${name}="${value.replace(/"/g, '&quot;')}"`)
      .join('');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<style>${url.searchParams.get('css') ?? ''}</style></head>
<body><h1>Shop</h1><p>Our products.</p>
<script src="${api}/widget/v1/widget.js" data-agent-id="${url.searchParams.get('agent')}"${attrs} async></script></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page: (api, agentId, options = {}) =>
      `${origin}/page?${new URLSearchParams({ api, agent: agentId, attributes: JSON.stringify(options.attributes ?? {}), css: options.css ?? '' })}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Debian's Chromium in a fresh profile, or the reason it is unavailable (the caller skips). */
export async function browser(): Promise<{ context: BrowserContext; close(): Promise<void> } | { reason: string }> {
  const found = ensureChromium();
  if ('reason' in found) return found;
  const profile = await mkdtemp(join(tmpdir(), 'agentry-widget-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: found.path,
    headless: true,
    args: CHROMIUM_FLAGS.filter((flag) => flag !== '--headless'),
    timeout: 30_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium for many visitors at once: each `newContext()` is a visitor with connections of its own. */
export async function visitorsBrowser(): Promise<Browser> {
  const found = ensureChromium();
  if ('reason' in found) throw new Error(found.reason);
  return chromium.launch({
    executablePath: found.path,
    headless: true,
    args: CHROMIUM_FLAGS.filter((flag) => flag !== '--headless'),
    timeout: 30_000,
  });
}

/** `visitorsBrowser()` for a suite's `before` hook; where Chromium cannot be had, the suite is skipped saying why. */
export async function visitorsBrowserOrSkip(hook: Mocha.Context): Promise<Browser> {
  const found = ensureChromium();
  if ('reason' in found) {
    console.warn(`    skipped: ${found.reason}`);
    hook.skip();
  }
  return visitorsBrowser();
}

/** `#rrggbb` as browsers compute it: `rgb(r, g, b)`. */
export function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}
