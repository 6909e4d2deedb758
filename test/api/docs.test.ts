import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_FLAGS, ensureChromium } from '../setup/chromium.js';
import { harness } from '../setup/harness.js';

describe('API reference at /docs, in a real browser', function () {
  let context: BrowserContext | undefined;
  let profile: string;

  before(async function () {
    // Installing Chromium the first time may take minutes; the test itself stays under a minute.
    this.timeout(600_000);
    const browser = ensureChromium();
    if ('reason' in browser) {
      console.warn(`    skipped: ${browser.reason}`);
      this.skip();
    }
    profile = await mkdtemp(join(tmpdir(), 'agentry-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.path,
      headless: true,
      args: CHROMIUM_FLAGS.filter((flag) => flag !== '--headless'),
      timeout: 30_000,
    });
  });

  after(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('renders every operation of the document, with its key scope and the schemas, loading nothing from elsewhere', async function () {
    this.timeout(60_000);
    const { origin, baseUrl } = harness();
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([key]) => key !== 'servers')
        .map(([, operation]) => (operation as { operationId: string }).operationId),
    );
    const page = await context!.newPage();
    await page.setViewportSize({ width: 1280, height: 4000 });
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin)) elsewhere.push(request.url());
    });
    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    // Swagger UI renders only what is near the viewport: scroll down the page, collecting the operations shown.
    const shown = new Set<string>();
    for (let step = 0; step < 100; step++) {
      const ids = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id));
      for (const id of ids) shown.add(id.split('-').pop()!);
      const atEnd = await page.evaluate('window.scrollY + window.innerHeight >= document.body.scrollHeight - 2');
      if (atEnd && shown.size >= operationIds.length) break;
      if (atEnd && step > 0) break;
      await page.mouse.wheel(0, 3000);
      await page.waitForTimeout(100);
    }
    expect([...shown].sort()).to.deep.equal([...operationIds].sort());
    await page.evaluate('window.scrollTo(0, 0)');
    // An operation opened shows its scope extension and its documented answer.
    const me = page.locator('.opblock[id$="-getMe"]');
    await me.locator('.opblock-summary').click();
    await me.getByText('x-key-scope').waitFor({ timeout: 10_000 });
    expect(await me.textContent()).to.match(/x-key-scope.*any/s);
    expect(await me.textContent()).to.include('application/json');
    // The schemas section lists the components, response schemas included.
    await page.locator('section.models').scrollIntoViewIfNeeded();
    expect(await page.locator('section.models .json-schema-2020-12__title').count()).to.be.greaterThan(10);
    expect(elsewhere, 'requests that left the server').to.deep.equal([]);
  });
});
