/**
 * The widget in a real browser (Debian's Chromium through playwright-core): a host page on another local origin
 * embeds the script; the visitor opens it, reads the greeting, enters an intent flow, sees the reply, reloads into
 * the same transcript, ends with feedback that starts an automation. Themes, a page's `* { all: unset }`, keyboard
 * use, 360 px, a disallowed origin, a wrong identity hash, the full-page chat and "slow down" are checked too.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually, ledgerRuns } from '../../setup/runs.js';
import { activeChain } from '../active-automations.helpers.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { browser, hostSite, rgb, TEST_OUTPUT, type HostSite } from './widget-page.js';
import { limitedApi, rotateSecret, shopAgent } from './widget.helpers.js';

const THEME = {
  title: 'Shop helper',
  primaryColor: '#7c3aed',
  backgroundColor: '#fffbeb',
  textColor: '#1f2937',
  userBubbleColor: '#0f766e',
  agentBubbleColor: '#e0f2fe',
  position: 'left',
};

describe('livechat widget in a real browser', function () {
  this.timeout(120_000);
  let a: Account;
  let site: HostSite;
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;

  before(async function () {
    this.timeout(600_000);
    const found = await browser();
    if ('reason' in found) {
      console.warn(`    skipped: ${found.reason}`);
      this.skip();
    }
    ({ context, close: closeBrowser } = found as Exclude<typeof found, { reason: string }>);
    site = await hostSite();
    a = await newAccount();
  });
  after(async () => {
    await closeBrowser?.();
    await site?.close();
  });

  const panel = (page: Page) => page.locator('.panel');
  const messages = (page: Page) => page.locator('.log .message .text');

  it('greets, answers through an intent flow, keeps its theme, resumes after a reload, and ends with feedback that starts an automation', async () => {
    const agent = await shopAgent(a);
    await ok('PUT', `${agent.base}/theme`, a.userKey, THEME, 200);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { collectFeedback: true } }, 200);
    const onFeedback = await activeChain(a.userKey, 'On widget feedback', [
      { type: 'TRIGGER', data: { triggerType: 'FEEDBACK_CAPTURED', triggeredByAgentIds: [agent.id] } },
    ]);
    const page = await context.newPage();
    const url = site.page(harness().origin, agent.id);
    await page.goto(url);
    const launcher = page.locator('.launcher');
    await launcher.waitFor({ state: 'visible' });
    expect(await launcher.getAttribute('aria-label')).to.equal('Open chat: Shop helper');
    await launcher.click();
    await messages(page).first().waitFor();
    expect(await messages(page).allTextContents()).to.deep.equal(['Welcome to the shop!']);
    expect(await page.locator('.log').getAttribute('aria-live')).to.equal('polite');
    expect(await panel(page).getAttribute('role')).to.equal('dialog');

    const style = (selector: string, property: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((node, p) => (globalThis as any).getComputedStyle(node).getPropertyValue(p), property);
    expect(await style('.panel', 'background-color')).to.equal(rgb(THEME.backgroundColor));
    expect(await style('header', 'background-color')).to.equal(rgb(THEME.primaryColor));
    expect(await style('.message.agent', 'background-color')).to.equal(rgb(THEME.agentBubbleColor));
    expect(await style('.message.agent', 'color')).to.equal(rgb(THEME.textColor));
    const box = (await panel(page).boundingBox())!;
    expect(box.x, 'position left').to.be.below(40);

    await page.locator('textarea').fill('Where is my order?');
    await page.keyboard.press('Enter');
    await page.getByText('Your order is on its way.').waitFor();
    expect(await style('.message.user', 'background-color')).to.equal(rgb(THEME.userBubbleColor));
    await mkdir(TEST_OUTPUT, { recursive: true });
    await page.screenshot({ path: join(TEST_OUTPUT, 'widget-open-panel.png') });

    await page.reload();
    await page.getByText('Your order is on its way.').waitFor();
    expect(await messages(page).allTextContents()).to.deep.equal(['Welcome to the shop!', 'Where is my order?', 'Your order is on its way.']);

    const { conversationId } = await page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key)), `agentry-widget:${agent.id}`);
    const transcript = await ok('GET', `${agent.base}/conversations/${conversationId}`, a.userKey);
    expect(transcript.channel).to.equal('livechat');
    const metadata = transcript.messages.find((m: { author: string }) => m.author === 'user').metadata;
    expect(metadata.pageUrl).to.equal(url);
    expect(metadata.userAgent).to.match(/Chrome/);

    await page.getByRole('button', { name: 'End chat' }).click();
    await page.getByText('How did we do?').waitFor();
    await page.getByRole('button', { name: '4 of 5' }).click();
    await page.getByLabel('Comment (optional)').fill('Quick answer');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    await page.getByText('Thank you for your feedback!').waitFor();
    const rated = await ok('GET', `${agent.base}/conversations/${conversationId}`, a.userKey);
    expect(rated).to.deep.include({ status: 'ENDED', feedback: { rating: 4, comment: 'Quick answer' } });
    await eventually(async () => ((await ledgerRuns(onFeedback.id)).length ? true : undefined), 'the FEEDBACK_CAPTURED run');
    await page.close();
  });

  it("shows a person's messages once the conversation is handed off: on the agent's side, under their name", async () => {
    const agent = await shopAgent(a);
    const page = await context.newPage();
    await page.goto(site.page(harness().origin, agent.id));
    await page.locator('.launcher').click();
    await messages(page).first().waitFor();
    const { conversationId } = await page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key)), `agentry-widget:${agent.id}`);
    const path = `${agent.base}/conversations/${conversationId}`;
    await ok('POST', `${path}/handoff`, a.userKey, undefined, 200);
    await page.getByText('I am passing you to a person').waitFor();
    await ok('POST', `${path}/operator-messages`, a.userKey, { text: 'Hi, Dana from support here.', name: 'Dana' });
    const bubble = page.locator('.message.operator');
    await bubble.waitFor();
    expect(await bubble.locator('.text').textContent()).to.equal('Hi, Dana from support here.');
    expect(await bubble.locator('.who').textContent()).to.equal('Dana');
    expect(await bubble.getAttribute('class')).to.equal('message agent operator');
    // The visitor writes back: no agent reply comes, and the typing dots do not stay.
    await page.locator('textarea').fill('Thanks Dana');
    await page.keyboard.press('Enter');
    await eventually(
      async () => ((await ok('GET', path, a.userKey)).messages.at(-1)?.text === 'Thanks Dana' ? true : undefined),
      'the visitor message',
    );
    await page.locator('.typing').waitFor({ state: 'hidden' });
    await page.close();
  });

  it("is untouched by the host page's `* { all: unset }`, keeps Tab inside the open panel, closes on Escape, and fits 360 px", async () => {
    const measure = async (css: string) => {
      // An agent of its own: the widget reopens a conversation the page's origin already has open.
      const agent = await shopAgent(a);
      const page = await context.newPage();
      await page.setViewportSize({ width: 360, height: 640 });
      await page.goto(site.page(harness().origin, agent.id, { css }));
      await page.locator('.launcher').click();
      await messages(page).first().waitFor();
      const read = (selector: string) =>
        page
          .locator(selector)
          .first()
          .evaluate((node) => {
            const s = (globalThis as any).getComputedStyle(node);
            const r = node.getBoundingClientRect();
            return {
              bg: s.backgroundColor,
              color: s.color,
              font: s.fontSize,
              display: s.display,
              position: s.position,
              x: r.x,
              y: r.y,
              w: r.width,
              h: r.height,
            };
          });
      const shape = {
        panel: await read('.panel'),
        header: await read('header'),
        bubble: await read('.message.agent'),
        input: await read('textarea'),
      };
      return { page, shape };
    };
    const plain = await measure('');
    const hostile = await measure('* { all: unset !important; } body { font-size: 40px; color: red; } button, textarea { display: none; }');
    expect(hostile.shape).to.deep.equal(plain.shape);
    expect(plain.shape.panel.w, 'fits 360 px').to.be.at.most(360);
    await hostile.page.close();

    const page = plain.page;
    const inside = () => page.evaluate(() => !!(globalThis as any).document.querySelector('[data-agentry-widget]').shadowRoot.activeElement);
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await inside(), `focus after ${i + 1} Tab`).to.equal(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await inside()).to.equal(true);
    await page.keyboard.press('Escape');
    expect(await panel(page).isHidden()).to.equal(true);
    expect(
      await page.evaluate(() => (globalThis as any).document.querySelector('[data-agentry-widget]').shadowRoot.activeElement?.className),
    ).to.equal('launcher');
    await page.close();
  });

  it('shows a disallowed site an error (the API answers it 403) and refuses a visitor whose identity hash is wrong', async () => {
    const agent = await shopAgent(a);
    await ok('PUT', `${agent.base}/settings/livechat`, a.userKey, { allowedOrigins: ['https://elsewhere.example'] }, 200);
    const page = await context.newPage();
    await page.goto(site.page(harness().origin, agent.id));
    await page.locator('.launcher').click();
    await page.getByText('This chat is not available here right now.').waitFor();
    const direct = await fetch(`${harness().origin}/widget/v1/agents/${agent.id}/sessions`, {
      method: 'POST',
      headers: { origin: site.origin, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(direct.status).to.equal(403);
    await page.close();

    const known = await shopAgent(a);
    await rotateSecret(a, known.id);
    const identified = await context.newPage();
    await identified.goto(site.page(harness().origin, known.id, { attributes: { 'user-id': 'customer-7', 'user-hash': 'ab'.repeat(32) } }));
    await identified.locator('.launcher').click();
    await identified.getByText('We could not verify who you are, so this chat cannot start.').waitFor();
    expect(await identified.locator('textarea').isHidden()).to.equal(true);
    await identified.close();
  });

  it('serves the full-page chat at /chat/{agentId}, and tells a visitor who writes too fast to slow down', async () => {
    const agent = await shopAgent(a);
    const page = await context.newPage();
    await page.goto(`${harness().origin}/chat/${agent.id}`);
    await messages(page).first().waitFor();
    await page.locator('textarea').fill('track my order');
    await page.keyboard.press('Enter');
    await page.getByText('Your order is on its way.').waitFor();
    const size = (await panel(page).boundingBox())!;
    expect(size.width).to.equal(page.viewportSize()!.width);
    await page.close();

    const limited = await limitedApi({ perAddress: null, perSession: { perSecond: 1, burst: 1 } });
    try {
      const fast = await context.newPage();
      await fast.goto(site.page(limited.origin, agent.id));
      await fast.locator('.launcher').click();
      await messages(fast).first().waitFor();
      for (const text of ['track my order', 'and again']) {
        await fast.locator('textarea').fill(text);
        await fast.keyboard.press('Enter');
      }
      await fast.getByText(/Slow down: you can send another message in \d+ s/).waitFor();
      await fast.close();
    } finally {
      limited.server.closeAllConnections();
      limited.server.close();
    }
  });
});
