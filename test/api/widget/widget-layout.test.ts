/**
 * The widget's layout in a real browser (Debian's Chromium): on a 360×640 phone the open panel fills the screen and
 * nothing covers any of its controls (the launcher hides while the panel is full-screen, and comes back when it closes
 * or the viewport grows), so tapping Send sends; on a desktop the launcher stays beside the open panel.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import type { Account } from '../agents/agent-calls.helpers.js';
import { hostSite, TEST_OUTPUT, visitorsBrowserOrSkip, type HostSite } from './widget-page.js';
import { shopAgent } from './widget.helpers.js';

/** A control of the open panel, where a finger or pointer would land on it, and what the browser hits there. */
interface Hit {
  control: string;
  x: number;
  y: number;
  /** `document.elementFromPoint` answers the widget's host (the page covers nothing) ... */
  pageHitsWidget: boolean;
  /** ... and inside the shadow root the control itself or an element inside it. */
  covered: boolean;
  hit: string;
}

/** Every visible interactive control of the open panel, hit-tested at its centre. */
function hitTest(page: Page): Promise<Hit[]> {
  // No named function inside: the test runner's compiler would wrap it in a helper the page does not have.
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const host = doc.querySelector('[data-agentry-widget]');
    const root = host.shadowRoot;
    const controls = [...root.querySelector('.panel').querySelectorAll('button, input, textarea, select, a[href], [tabindex]')].filter(
      (node: any) => node.getClientRects().length > 0,
    );
    return controls.map((node: any) => {
      const box = node.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      const hit = root.elementFromPoint(x, y);
      return {
        control: node.getAttribute('aria-label') || node.textContent.trim() || node.tagName.toLowerCase(),
        x,
        y,
        pageHitsWidget: doc.elementFromPoint(x, y) === host,
        covered: !(hit && (hit === node || node.contains(hit))),
        hit: hit ? `${hit.tagName.toLowerCase()}.${String(hit.className).split(' ').join('.')}` : 'nothing',
      };
    });
  });
}

describe('livechat widget layout in a real browser', function () {
  this.timeout(120_000);
  let a: Account;
  let site: HostSite;
  let chromium: Browser;

  before(async function () {
    this.timeout(600_000);
    chromium = await visitorsBrowserOrSkip(this);
    site = await hostSite();
    a = await newAccount();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  const launcherShown = (page: Page) => page.locator('.launcher').evaluate((node) => (globalThis as any).getComputedStyle(node).display !== 'none');
  const focused = (page: Page) =>
    page.evaluate(() => (globalThis as any).document.querySelector('[data-agentry-widget]').shadowRoot.activeElement?.className ?? null);

  it('on a 360×640 phone, fills the screen with the open panel, leaves every control uncovered, and sends on a tap of Send', async () => {
    const agent = await shopAgent(a);
    const phone = await chromium.newContext({ viewport: { width: 360, height: 640 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    await page.goto(site.page(harness().origin, agent.id));
    const launcher = page.locator('.launcher');
    await launcher.waitFor({ state: 'visible' });
    const start = (await launcher.boundingBox())!;
    await page.touchscreen.tap(start.x + start.width / 2, start.y + start.height / 2);
    await page.locator('.log .message').first().waitFor();
    expect(await page.locator('.panel').boundingBox()).to.deep.equal({ x: 0, y: 0, width: 360, height: 640 });

    const hits = await hitTest(page);
    expect(hits.map((h) => h.control)).to.include.members(['Close chat', 'End chat', 'Message', 'Send']);
    for (const hit of hits) {
      expect(hit.pageHitsWidget, `${hit.control} at (${hit.x}, ${hit.y}): the page covers it`).to.equal(true);
      expect(hit.covered, `${hit.control} at (${hit.x}, ${hit.y}) is covered by ${hit.hit}`).to.equal(false);
    }
    expect(await launcherShown(page), 'launcher while the panel fills the screen').to.equal(false);

    // Tab stays in the panel and never lands on the hidden launcher.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await focused(page), `focus after ${i + 1} Tab`)
        .to.be.a('string')
        .and.not.equal('launcher');
    }

    await page.locator('textarea').fill('track my order');
    const send = hits.find((h) => h.control === 'Send')!;
    await page.touchscreen.tap(send.x, send.y);
    await page.getByText('Your order is on its way.').waitFor();
    expect(await page.locator('.panel').isVisible(), 'panel after tapping Send').to.equal(true);
    expect(await page.locator('.log .message.user .text').allTextContents()).to.deep.equal(['track my order']);
    await mkdir(TEST_OUTPUT, { recursive: true });
    await page.screenshot({ path: join(TEST_OUTPUT, 'widget-phone-open-panel.png') });

    // A viewport that grows past 480 px shows the launcher beside the panel again; shrinking hides it, and the focus
    // it held moves to the panel's close button.
    await page.setViewportSize({ width: 800, height: 640 });
    expect(await launcherShown(page), 'launcher at 800 px').to.equal(true);
    await launcher.focus();
    await page.setViewportSize({ width: 360, height: 640 });
    expect(await launcherShown(page), 'launcher at 360 px again').to.equal(false);
    // The media query's change event comes with the next frame: wait for it in the page.
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('[data-agentry-widget]').shadowRoot.activeElement?.className === 'close',
      undefined,
      { timeout: 10_000 },
    );

    // Closing from inside the panel brings the launcher back, with the focus on it.
    const close = (await hitTest(page)).find((h) => h.control === 'Close chat')!;
    await page.touchscreen.tap(close.x, close.y);
    expect(await page.locator('.panel').isHidden()).to.equal(true);
    expect(await launcherShown(page), 'launcher once closed').to.equal(true);
    expect(await launcher.getAttribute('aria-expanded')).to.equal('false');
    expect(await focused(page)).to.equal('launcher');
    await phone.close();
  });

  it('on a desktop, keeps the launcher beside the open panel, where it closes it', async () => {
    const agent = await shopAgent(a);
    const desktop = await chromium.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await desktop.newPage();
    await page.goto(site.page(harness().origin, agent.id));
    const launcher = page.locator('.launcher');
    await launcher.click();
    await page.locator('.log .message').first().waitFor();
    expect(await launcherShown(page)).to.equal(true);
    expect(await launcher.getAttribute('aria-expanded')).to.equal('true');
    const hits = await hitTest(page);
    expect(hits.filter((h) => h.covered || !h.pageHitsWidget)).to.deep.equal([]);
    const panel = (await page.locator('.panel').boundingBox())!;
    const button = (await launcher.boundingBox())!;
    expect(button.y, 'launcher below the panel').to.be.at.least(panel.y + panel.height);
    await launcher.click();
    expect(await page.locator('.panel').isHidden()).to.equal(true);
    await desktop.close();
  });
});
